// A small valid input for the driver tests that are about everything but the input.
func.func @ok(%x: i32) -> i32 {
  return %x : i32
}
