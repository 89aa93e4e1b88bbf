tachyon-validate --format xml x.jsonl
