# A JSONL export whose string table defines a string no frame uses, in
# the middle (string 1), and lists its agg entries out of frame order:
# the export written back drops the string and numbers the later ones
# down, frames and entries in frame order. The writer keeps no string
# map while the ids run as the profile's; this is where they stop doing so.
cat > in.jsonl <<'JSONL'
{"type":"meta","v":0,"run_id":"5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e","sample_interval_usec":1000}
{"type":"string_table","v":0,"run_id":"5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e","strings":[{"str_id":0,"value":"f"},{"str_id":1,"value":"unused"},{"str_id":2,"value":"a.py"},{"str_id":3,"value":"g"},{"str_id":4,"value":"b.py"}]}
{"type":"frame_table","v":0,"run_id":"5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e","frames":[{"frame_id":0,"path_str_id":2,"func_str_id":0,"line":1},{"frame_id":1,"path_str_id":4,"func_str_id":3,"line":2},{"frame_id":2,"path_str_id":2,"func_str_id":3,"line":3}]}
{"type":"agg","v":0,"run_id":"5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e","kind":"frame","scope":"final","samples_total":5,"entries":[{"frame_id":1,"self":2,"cumulative":3},{"frame_id":0,"self":3,"cumulative":5},{"frame_id":2,"self":0,"cumulative":1}]}
{"type":"end","v":0,"run_id":"5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e","samples_total":5}
JSONL
tachyon-conv in.jsonl
tachyon-conv --to top in.jsonl
