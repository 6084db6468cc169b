# torch.corrcoef on the GPU, as the same-card baseline of `paralab bench headline`'s correlation:
#   python3 corrcoef.py SERIES LENGTH RUNS
# Random walks (cumulative sums of standard normals, seed 1), f32, made on the GPU; TF32 off (PyTorch's
# default for f32 products), so the products are plain f32. After three untimed calls, RUNS calls each
# timed by CUDA events. Prints one JSON line: {"median_ms", "min_ms", "max_ms", "torch", "device"}.
# Exits 3 when PyTorch or a CUDA device is missing (the headline skips the baseline with a note).
import json
import statistics
import sys

try:
    import torch
except ImportError:
    print("corrcoef.py: PyTorch is not installed", file=sys.stderr)
    sys.exit(3)
if not torch.cuda.is_available():
    print("corrcoef.py: PyTorch sees no CUDA device", file=sys.stderr)
    sys.exit(3)

series, length, runs = (int(a) for a in sys.argv[1:4])
torch.backends.cuda.matmul.allow_tf32 = False
g = torch.Generator(device="cuda").manual_seed(1)
x = torch.randn(series, length, device="cuda", generator=g, dtype=torch.float32).cumsum(1)
for _ in range(3):
    torch.corrcoef(x)
torch.cuda.synchronize()
times = []
for _ in range(runs):
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    r = torch.corrcoef(x)
    b.record()
    b.synchronize()
    times.append(a.elapsed_time(b))
del r
print(json.dumps({"median_ms": statistics.median(times), "min_ms": min(times), "max_ms": max(times), "torch": torch.__version__, "device": torch.cuda.get_device_name()}))
