tachyon-validate --max-errors -1 x.jsonl; echo "exit $?"
tachyon-validate --max-line 0 x.jsonl; echo "exit $?"
