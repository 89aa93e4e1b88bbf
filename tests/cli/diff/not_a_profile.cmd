printf "hello\n" > x.txt; : > empty; tachyon-diff x.txt empty; echo "exit $?"; tachyon-diff empty x.txt
