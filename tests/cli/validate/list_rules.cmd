tachyon-validate --list-rules
