tachyon-validate --version && tachyon-validate -V
