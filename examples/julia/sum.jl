# UNTESTED: no Julia toolchain where this was written. See examples/README.md.
#
# ArrowMetal from Julia through ccall: builds an int64 array of 1000 sevens
# with am_full, sums it and a slice of it with am_sum, and checks that a bad
# call reports AM_EINVAL with a message. Every am_array handle the library
# gives us is ours to am_release, once. Prints "ok" on success.
#
#   ARROWMETAL_LIBRARY=/path/to/libarrowmetal.so.0 julia sum.jl
#
# Without ARROWMETAL_LIBRARY the library is looked up as "libarrowmetal" on
# the system's library path (LD_LIBRARY_PATH / DYLD_LIBRARY_PATH).

const libam = get(ENV, "ARROWMETAL_LIBRARY", "libarrowmetal")

# am_status and am_type values, from arrowmetal.h.
const AM_OK = Cint(0)
const AM_EINVAL = Cint(1)
const AM_INT64 = Int32(5)

# am_scalar: the same fields, in the same order, as the C struct (32 bytes).
struct AmScalar
    typ::Int32  # am_type
    is_null::Int32
    i64::Int64
    u64::UInt64
    f64::Float64
end

# am_array * is an opaque handle: Ptr{Cvoid} here.
const AmArray = Ptr{Cvoid}

last_error() = unsafe_string(ccall((:am_last_error, libam), Cstring, ()))

function check(status, what)
    status == AM_OK || error("$what failed with status $status: $(last_error())")
    return nothing
end

function am_full(value::AmScalar, length::Integer)
    out = Ref{AmArray}(C_NULL)
    status = ccall((:am_full, libam), Cint, (Ref{AmScalar}, Int64, Ptr{Cvoid}, Ref{AmArray}),
                   value, length, C_NULL, out)  # C_NULL device: the default
    check(status, "am_full")
    return out[]
end

function am_slice(array::AmArray, offset::Integer, length::Integer)
    out = Ref{AmArray}(C_NULL)
    status = ccall((:am_slice, libam), Cint, (AmArray, Int64, Int64, Ref{AmArray}),
                   array, offset, length, out)
    check(status, "am_slice")
    return out[]
end

function am_sum(array::AmArray)
    out = Ref{AmScalar}()
    check(ccall((:am_sum, libam), Cint, (AmArray, Ref{AmScalar}), array, out), "am_sum")
    s = out[]
    # Sums of signed integers are AM_INT64, in the i64 field.
    (s.typ == AM_INT64 && s.is_null == 0) || error("unexpected sum scalar $s")
    return s.i64
end

am_release(array::AmArray) = ccall((:am_release, libam), Cvoid, (AmArray,), array)
am_length(array::AmArray) = ccall((:am_length, libam), Int64, (AmArray,), array)

function main()
    version = unsafe_string(ccall((:am_version, libam), Cstring, ()))
    println("ArrowMetal $version")
    array = am_full(AmScalar(AM_INT64, 0, 7, 0, 0.0), 1000)
    try
        am_length(array) == 1000 || error("length")
        slice = am_slice(array, 990, 10)  # zero-copy view; a handle of its own
        try
            total, tail = am_sum(array), am_sum(slice)
            (total == 7000 && tail == 70) || error("sums $total, $tail")
            println("sum of 1000 sevens: $total; of the last 10: $tail")
        finally
            am_release(slice)
        end
    finally
        am_release(array)
    end
    # A NULL array is AM_EINVAL, with a message naming the function.
    unused = Ref{AmScalar}()
    status = ccall((:am_sum, libam), Cint, (AmArray, Ref{AmScalar}), C_NULL, unused)
    status == AM_EINVAL || error("am_sum(NULL) gave $status")
    println("am_sum(NULL): $(last_error())")
    println("ok")
end

main()
