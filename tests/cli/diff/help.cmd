tachyon-diff --help
