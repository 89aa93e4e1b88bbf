tachyon-conv --to collapsed
