// UNTESTED: no Swift toolchain where this was written. See examples/README.md.
//
// Builds an int64 array of 1000 sevens with am_full, sums it and a slice of
// it with am_sum, and checks that a bad call reports AM_EINVAL with a message.
// Every am_array handle the library gives us is ours to am_release, once.
// Prints "ok" and exits 0 on success.
import CArrowMetal

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Calls return Int32: AM_OK (0) or an am_status code; am_last_error() names
// the problem (thread-local, valid until the next call on this thread).
func check(_ status: Int32, _ what: String) {
    if status != Int32(AM_OK.rawValue) {
        let message = String(cString: am_last_error())
        fputs("SumExample: \(what) failed with status \(status): \(message)\n", stderr)
        exit(1)
    }
}

func sum(_ array: OpaquePointer?) -> Int64 {
    var out = am_scalar()
    check(am_sum(array, &out), "am_sum")
    // Sums of signed integers are AM_INT64, in the i64 field.
    precondition(out.type == Int32(AM_INT64.rawValue) && out.is_null == 0)
    return out.i64
}

let runtime = String(cString: am_version())
precondition(runtime == ARROWMETAL_VERSION_STRING, "header \(ARROWMETAL_VERSION_STRING), library \(runtime)")
print("ArrowMetal \(runtime), default device \(String(cString: am_device_name(am_default_device())))")

var seven = am_scalar()
seven.type = Int32(AM_INT64.rawValue)
seven.is_null = 0
seven.i64 = 7

// am_array is opaque: Swift sees it as OpaquePointer. nil device: the default.
var array: OpaquePointer? = nil
check(am_full(&seven, 1000, nil, &array), "am_full")
defer { am_release(array) }
precondition(am_length(array) == 1000 && am_null_count(array) == 0)

// A zero-copy view of 10 slots; a handle of its own, released on its own.
var slice: OpaquePointer? = nil
check(am_slice(array, 990, 10, &slice), "am_slice")
defer { am_release(slice) }

let total = sum(array)
let tail = sum(slice)
precondition(total == 7000 && tail == 70, "sums \(total), \(tail)")

// A NULL array is AM_EINVAL, and the output is left alone.
var unused = am_scalar()
precondition(am_sum(nil, &unused) == Int32(AM_EINVAL.rawValue))
print("sum of 1000 sevens: \(total); of the last 10: \(tail)")
print("ok")
