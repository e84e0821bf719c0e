func.func @f(%x: i32) -> i64 {
  return %x : i32
}
