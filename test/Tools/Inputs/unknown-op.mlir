func.func @f() {
  %0 = ckpt.bogus
}
