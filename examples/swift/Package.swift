// swift-tools-version:5.7
// UNTESTED: no Swift toolchain where this was written. See examples/README.md.
//
// ArrowMetal from Swift: a system-library target (CArrowMetal) that finds the
// header and the library through pkg-config (`make install` writes
// arrowmetal.pc), and an executable that sums an array.
import PackageDescription

let package = Package(
    name: "SumExample",
    targets: [
        .systemLibrary(
            name: "CArrowMetal",
            path: "Sources/CArrowMetal",
            pkgConfig: "arrowmetal"
        ),
        .executableTarget(
            name: "SumExample",
            dependencies: ["CArrowMetal"]
        ),
    ]
)
