tachyon-diff --rewrite "a(b=>x" a b; echo "exit $?"; tachyon-diff --rewrite "abc" a b; echo "exit $?"; tachyon-diff --include "[z-a]" a b
