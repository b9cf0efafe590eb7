"""Which branch each complex logcumsumexp picks: torch's CUDA kernel (the switch off) and
scan_zoo's, each against torch's CPU kernel in complex128, on parts uniform in [-9, 9] (OpInfo's
range). A result's imaginary part is defined only modulo 2 pi (include/scan_zoo/operators.cuh,
LogSumExp<Complex<T>>): per shape, how many results are off the CPU kernel's by a nonzero
multiple of 2 pi, the worst errors of the real part and of the imaginary part modulo 2 pi, and
whether every line's first result is its first element.

    python3 probes/complex_logcumsumexp_branch.py      (a GPU, torch and the scan_zoo package)
"""
import math

import torch

import scan_zoo


def off_and_errors(got, reference):
    turns = torch.round((got.imag - reference.imag) / (2 * math.pi))
    moved = got.imag - 2 * math.pi * turns
    return (int((turns != 0).sum()), (got.real - reference.real).abs().max().item(),
            (moved - reference.imag).abs().max().item())


def main():
    torch.manual_seed(0)
    for shape, dim in (((5, 5, 5), 0), ((5, 5, 5), 1), ((64, 1000), 1), ((4096, 8), 0), ((1 << 16,), 0)):
        for dtype in (torch.complex64, torch.complex128):
            parts = [torch.rand(shape, dtype=torch.float64) * 18 - 9 for _ in range(2)]
            z = torch.complex(*parts).to(dtype)
            cpu = z.to(torch.complex128).logcumsumexp(dim)
            cuda = z.cuda().logcumsumexp(dim).cpu().to(torch.complex128)
            ours = scan_zoo.logcumsumexp(z.cuda(), dim).cpu().to(torch.complex128)
            c_off, c_re, c_im = off_and_errors(cuda, cpu)
            o_off, o_re, o_im = off_and_errors(ours, cpu)
            first = torch.allclose(ours.select(dim, 0), z.to(torch.complex128).select(dim, 0), rtol=1e-6, atol=1e-6)
            print(f"{str(dtype)[6:]} {shape} dim {dim}: {z.numel()} results; torch CUDA off CPU's branch at {c_off} "
                  f"(max err re {c_re:.2e}, im mod 2pi {c_im:.2e}); scan_zoo at {o_off} (re {o_re:.2e}, "
                  f"im {o_im:.2e}); first element kept: {first}", flush=True)


if __name__ == "__main__":
    main()
