tachyon-validate --help
