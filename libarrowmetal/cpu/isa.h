/* What the x86-64 CPU and the OS offer the hand-vectorized loops. */
#ifndef AM_CPU_ISA_H
#define AM_CPU_ISA_H

/* *avx2: AVX2 with FMA and the OS saving ymm state; *avx512: that, the F and
 * DQ subsets and the OS saving the opmask and zmm state. Both 0 off x86-64
 * (or off GCC and clang). Asked of CPUID once, then remembered: CPUID traps
 * to the hypervisor in a VM, microseconds a time. Thread-safe. */
void am_cpu_isa(int *avx2, int *avx512);

#endif
