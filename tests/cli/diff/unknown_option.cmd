tachyon-diff --frob a b
