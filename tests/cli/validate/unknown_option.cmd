tachyon-validate --frob x.jsonl
