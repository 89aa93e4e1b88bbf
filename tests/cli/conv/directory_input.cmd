mkdir d && tachyon-conv d
