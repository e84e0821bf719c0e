func.func @f(%x: i32) -> i32 {
  %y = arith.addi %x, %x : i32
  return %y : i32
}
