# Reference values of every numeric 1-D and 2-D variable of the corpus's HDF5 and NetCDF files:
# netCDF4 (masked, as it reads by default) for NetCDF files (classic, and HDF5 files named .nc),
# h5py for other HDF5 files. One JSON object a file: {variables: [{path, shape, values | error}]}.
import sys, os, json, math, numpy as np
import h5py, netCDF4

def enc(x):
    if x is None: return None
    if isinstance(x, (float, np.floating)):
        x = float(x)
        return x if math.isfinite(x) else ('NaN' if math.isnan(x) else ('Infinity' if x > 0 else '-Infinity'))
    # Integers beyond ±2^53 as text: JSON's readers would round them.
    return int(x) if abs(int(x)) <= 2 ** 53 else str(int(x))

def flat(a):
    if np.ma.isMaskedArray(a):
        m = np.ma.getmaskarray(a).ravel()
        d = np.asarray(a.data).ravel()
        return [None if m[i] else enc(d[i]) for i in range(d.size)]
    return [enc(v) for v in np.asarray(a).ravel()]

def numeric(dt):
    return dt.kind in 'iuf' and dt.fields is None

def dump_netcdf(path):
    out = []
    h5 = h5py.File(path, 'r') if open(path, 'rb').read(4) == b'\x89HDF' else None
    def walk(g, prefix):
        for name, v in g.variables.items():
            if not (isinstance(v.dtype, np.dtype) and numeric(v.dtype)) or v.ndim not in (1, 2): continue
            hpath = prefix + name
            if h5 is not None and (prefix + '_nc4_non_coord_' + name).lstrip('/') in h5: hpath = prefix + '_nc4_non_coord_' + name
            try: out.append({'path': hpath, 'shape': list(v.shape), 'values': flat(v[...])})
            except Exception as e: out.append({'path': hpath, 'shape': list(v.shape), 'error': str(e)})
        for gname, sub in g.groups.items(): walk(sub, prefix + gname + '/')
    d = netCDF4.Dataset(path)
    walk(d, '/')
    return out

def dump_h5(path):
    out = []
    f = h5py.File(path, 'r')
    def visit(name, o):
        if isinstance(o, h5py.Dataset) and numeric(o.dtype) and o.ndim in (1, 2):
            try: out.append({'path': '/' + name, 'shape': list(o.shape), 'values': flat(o[...])})
            except Exception as e: out.append({'path': '/' + name, 'shape': list(o.shape), 'error': str(e)})
    f.visititems(visit)
    return out

root, dest = sys.argv[1], sys.argv[2]
result = {}
for dirpath, _, names in os.walk(root):
    for n in sorted(names):
        p = os.path.join(dirpath, n)
        head = open(p, 'rb').read(4)
        if head[:3] != b'CDF' and head != b'\x89HDF': continue
        rel = os.path.relpath(p, root)
        try:
            result[rel] = dump_netcdf(p) if head[:3] == b'CDF' or n.endswith('.nc') else dump_h5(p)
        except Exception as e:
            result[rel] = {'error': str(e)}
json.dump(result, open(dest, 'w'))
