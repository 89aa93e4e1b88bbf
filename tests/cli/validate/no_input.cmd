tachyon-validate
