# SPDX-License-Identifier: MIT
# A merged profile back into the toolkit: every api run of version 41 and
# of version 42 as one profile each (rows in run order, so collapsed and
# JSONL outputs number as tachyon-conv does for the logs themselves), a
# flame graph of version 42, its hottest functions, and the release
# comparison.
# usage: sh 5-merged-profile.sh   (CH: the server's HTTP URL; TOOLS:
#        the folder of the tachyon tools)
for v in 41 42; do
    curl -sS "$CH" --data-binary "SELECT * FROM tachyon_stacks
        WHERE labels.value[indexOf(labels.key, 'service')] = 'api'
          AND labels.value[indexOf(labels.key, 'version')] = '$v'
        ORDER BY run_id, row FORMAT JSONEachRow" > "v$v.json"
done
"$TOOLS/tachyon-conv" --to svg --title "api, version 42" -o v42.svg v42.json
"$TOOLS/tachyon-conv" --to top -n 5 v42.json
"$TOOLS/tachyon-diff" --top 5 v41.json v42.json
