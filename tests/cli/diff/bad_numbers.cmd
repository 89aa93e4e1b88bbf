tachyon-diff --min-delta -1 a b; echo "exit $?"; tachyon-diff --alpha 2 a b; echo "exit $?"; tachyon-diff --top x a b
