# Small HDF5, NetCDF-4 and classic NetCDF files for the HDF5/NetCDF readers' hostile and fuzz tests,
# written by the reference libraries (h5py, netCDF4) into the folder given.
import sys, numpy as np, h5py, netCDF4
from h5py import h5d, h5p, h5s, h5t
d = sys.argv[1]
rng = np.random.default_rng(7)
col = rng.standard_normal(200)
mat = rng.standard_normal((40, 6))

def never_written(f, name, shape, chunks=None):
    # A dataset whose storage is never written and whose fill time is "never": no values at all.
    dcpl = h5p.create(h5p.DATASET_CREATE)
    dcpl.set_fill_time(h5d.FILL_TIME_NEVER)
    if chunks: dcpl.set_chunk(chunks)
    return h5d.create(f.id, name.encode(), h5t.IEEE_F64LE, h5s.create_simple(shape), dcpl=dcpl)

with h5py.File(d + '/small.h5', 'w') as f:
    f['/col'] = col
    f['/mat'] = mat
with h5py.File(d + '/small-chunked.h5', 'w') as f:
    f.create_dataset('/col', data=col, chunks=(32,), compression='gzip', shuffle=True)
    f.create_dataset('/mat', data=mat, chunks=(8, 3), compression='gzip')
with h5py.File(d + '/unwritten.h5', 'w') as f:
    never_written(f, '/never', (100,))
    part = never_written(f, '/part', (64,), chunks=(16,))
    # Chunks 0 and 2 written, 1 and 3 never.
    ds = h5py.Dataset(part)
    ds[0:16] = np.arange(16.0)
    ds[32:48] = np.arange(16.0)
    f['/written'] = col
# 5·10^7 × 10 float64 of a fill value, never written: a file of about a kilobyte.
with h5py.File(d + '/claims.h5', 'w') as f:
    f.create_dataset('/x', shape=(50_000_000, 10), dtype='<f8', fillvalue=1.5)
    f.create_dataset('/col', shape=(50_000_000,), dtype='<f8', fillvalue=1.5)
with netCDF4.Dataset(d + '/filled.nc', 'w', format='NETCDF4') as nc:
    nc.createDimension('t', 10)
    v = nc.createVariable('v', 'f8', ('t',), fill_value=-999.0)
    v[0:4] = [1.0, 2.0, 3.0, 4.0]
    w = nc.createVariable('w', 'f8', ('t',))
    w[0:3] = [1.0, 2.0, 3.0]
for version, fmt in ((1, 'NETCDF3_CLASSIC'), (2, 'NETCDF3_64BIT_OFFSET'), (5, 'NETCDF3_64BIT_DATA')):
    with netCDF4.Dataset(d + f'/small-cdf{version}.nc', 'w', format=fmt) as nc:
        nc.createDimension('x', 40)
        nc.createDimension('s', 6)
        nc.createDimension('t', None)
        nc.createVariable('mat', 'f8', ('x', 's'))[:] = mat
        nc.createVariable('col', 'f8', ('t',))[:] = col
        nc.createVariable('flag', 'i2', ('t',))[:] = np.arange(200) % 3
        f = nc.createVariable('filled', 'f4', ('t',), fill_value=np.float32(-1.0))
        f[0:150] = np.ones(150, dtype='f4')
# Large enough that reading it takes seconds: for cancel (left out with --small).
if '--small' in sys.argv:
    pass
else:
  with h5py.File(d + '/slow.h5', 'w') as f:
    f.create_dataset('/col', data=rng.standard_normal(6_000_000), chunks=(65536,), compression='gzip', compression_opts=1)
  with netCDF4.Dataset(d + '/slow.nc', 'w', format='NETCDF3_64BIT_DATA') as nc:
    nc.createDimension('t', None)
    nc.createVariable('col', 'f8', ('t',))[:] = rng.standard_normal(6_000_000)
    nc.createVariable('other', 'f8', ('t',))[:] = rng.standard_normal(6_000_000)
np.save(d + '/col.npy', col)
np.save(d + '/mat.npy', mat)
