tachyon-conv --version && tachyon-conv -V && tachyon-conv --help --version | head -n 1
