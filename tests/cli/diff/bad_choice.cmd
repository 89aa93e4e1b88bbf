tachyon-diff --key line a b
