# HDF5 files as h5py writes them and NetCDF files as netCDF4 writes them, option by option, for
# test/unit/hdf5-writers-sweep.test.ts: every numeric dtype in both byte orders, compact, contiguous
# and chunked layouts with edge chunks, every filter h5py offers, fill values written and never
# written, resizable and empty datasets; the five NetCDF formats with CF's masking and packing
# attributes (_FillValue, missing_value, valid_*, _Unsigned, scale_factor, add_offset), record
# variables, fill modes. Written into the folder given; test/helpers/hdf5-reference.py reads them.
import sys, numpy as np, h5py, netCDF4
from h5py import h5d, h5p, h5s, h5t, h5z
d = sys.argv[1]
N = 40
rng = np.random.default_rng(11)
SAFE = 2 ** 53 - 1

def ints(dt, n=N):
    # Both ends of the type's range (within ±2^53), zero, one, and values across it.
    info = np.iinfo(dt)
    lo, hi = max(int(info.min), -SAFE), min(int(info.max), SAFE)
    out = [lo, hi, 0, 1] + [int(lo + (hi - lo) * k // (n - 4)) for k in range(n - 4)]
    return np.array(out[:n], dtype=dt)

def floats(dt, n=N):
    a = (rng.standard_normal(n) * 1000).astype(dt)
    a[0], a[1], a[2] = np.finfo(dt).max, -0.0, np.finfo(dt).tiny
    return a

def values(dt, n=N):
    return floats(dt, n) if np.dtype(dt).kind == 'f' else ints(dt, n)

# ---------------------------------------------------------------- HDF5 (h5py)
NUMERIC = ['i1', 'u1', 'i2', 'u2', 'i4', 'u4', 'i8', 'u8', 'f2', 'f4', 'f8']
with h5py.File(d + '/types.h5', 'w') as f:
    for dt in NUMERIC:
        for order in '<>':
            t = order + dt if dt[1] != '1' else dt
            if order == '>' and dt[1] == '1': continue
            f['/1d/' + dt + ('be' if order == '>' else '')] = values(t)
            f['/2d/' + dt + ('be' if order == '>' else '')] = values(t, 35).reshape(7, 5)
    # 64-bit integers beyond ±2^53, and NaN: refused.
    f['/wide/i8'] = np.array([1, -2 ** 63, 3], '<i8')
    f['/wide/u8'] = np.array([1, 2 ** 64 - 1, 3], '>u8')
    f['/wide/u8_2d'] = np.array([[1, 2], [2 ** 60 + 1, 4]], '<u8')
    f['/nan'] = np.array([1.0, np.nan, 3.0])

col = values('f8')
mat = values('f4', 37 * 11).reshape(37, 11)
with h5py.File(d + '/layouts.h5', 'w') as f:
    f['/contiguous'] = col
    f.create_dataset('/chunked_edges', data=mat, chunks=(8, 4))
    f.create_dataset('/chunked_1d', data=col, chunks=(7,))
    f.create_dataset('/one_chunk', data=col, chunks=(N,))
    dcpl = h5p.create(h5p.DATASET_CREATE)
    dcpl.set_layout(h5d.COMPACT)
    ds = h5d.create(f.id, b'/compact', h5t.STD_I16BE, h5s.create_simple((N,)), dcpl)
    ds.write(h5s.ALL, h5s.ALL, values('>i2'))
    dcpl = h5p.create(h5p.DATASET_CREATE)
    dcpl.set_layout(h5d.COMPACT)
    ds = h5d.create(f.id, b'/compact_2d', h5t.IEEE_F32LE, h5s.create_simple((6, 4)), dcpl)
    ds.write(h5s.ALL, h5s.ALL, values('<f4', 24).reshape(6, 4))

with h5py.File(d + '/filters.h5', 'w') as f:
    for level in (1, 9):
        f.create_dataset('/gzip%d' % level, data=mat, chunks=(8, 4), compression='gzip', compression_opts=level)
    f.create_dataset('/lzf', data=mat, chunks=(8, 4), compression='lzf')
    f.create_dataset('/shuffle_gzip', data=values('<i8'), chunks=(16,), shuffle=True, compression='gzip')
    f.create_dataset('/shuffle_alone', data=values('>u4'), chunks=(16,), shuffle=True)
    f.create_dataset('/fletcher32', data=col, chunks=(16,), fletcher32=True)
    f.create_dataset('/fletcher32_gzip_2d', data=mat, chunks=(8, 4), fletcher32=True, compression='gzip')
    f.create_dataset('/scaleoffset_int', data=values('<i4'), chunks=(16,), scaleoffset=0)
    f.create_dataset('/scaleoffset_int_bits', data=np.arange(N, dtype='<i2') * 3 - 7, chunks=(16,), scaleoffset=6)
    f.create_dataset('/scaleoffset_float', data=np.linspace(-5, 5, N), chunks=(16,), scaleoffset=3)
    if h5z.filter_avail(h5z.FILTER_SZIP):
        f.create_dataset('/szip', data=values('<i4'), chunks=(16,), compression='szip')
    # The n-bit filter on an integer type of 12 bits in 16 (h5py reads it sign-extended).
    t = h5t.STD_I16LE.copy()
    t.set_precision(12)
    dcpl = h5p.create(h5p.DATASET_CREATE)
    dcpl.set_chunk((16,))
    dcpl.set_filter(h5z.FILTER_NBIT)
    ds = h5d.create(f.id, b'/nbit_i12', t, h5s.create_simple((N,)), dcpl)
    ds.write(h5s.ALL, h5s.ALL, np.arange(N, dtype='<i2') * 97 - 2000)
    # The same 12-bit type stored as it is, and an unsigned one at a bit offset.
    ds = h5d.create(f.id, b'/precision_i12', t, h5s.create_simple((N,)))
    ds.write(h5s.ALL, h5s.ALL, np.arange(N, dtype='<i2') * 97 - 2000)
    u = h5t.STD_U16BE.copy()
    u.set_precision(10)
    u.set_offset(3)
    ds = h5d.create(f.id, b'/precision_u10_offset3', u, h5s.create_simple((N,)))
    ds.write(h5s.ALL, h5s.ALL, np.arange(N, dtype='<u2') * 25)

with h5py.File(d + '/unusual.h5', 'w') as f:
    # An integer type of 12 bits in 32, which HDF5 1.14 takes for a damaged file (h5py's 1.10 reads it):
    # refused alone, the file's other datasets read.
    t = h5t.STD_I32LE.copy()
    t.set_precision(12)
    ds = h5d.create(f.id, b'/i12_in_32', t, h5s.create_simple((N,)))
    ds.write(h5s.ALL, h5s.ALL, np.arange(N, dtype='<i4') - 20)
    f['/ordinary'] = values('<i4')

with h5py.File(d + '/fill.h5', 'w') as f:
    # Chunks never written read as the fill value (h5py), or 0 without one.
    a = f.create_dataset('/fillvalue', shape=(N,), dtype='<f8', chunks=(8,), fillvalue=7.5)
    a[0:12] = col[0:12]
    b = f.create_dataset('/nofill', shape=(N,), dtype='<i4', chunks=(8,))
    b[20:30] = np.arange(10)
    c = f.create_dataset('/fillvalue_2d', shape=(20, 6), dtype='<i2', chunks=(8, 4), fillvalue=-1)
    c[0:8, 0:4] = 5
    f.create_dataset('/never_touched', shape=(N,), dtype='<f4', chunks=(8,), fillvalue=2.5)
    # Fill time "never": what was never written holds no value at all.
    dcpl = h5p.create(h5p.DATASET_CREATE)
    dcpl.set_fill_time(h5d.FILL_TIME_NEVER)
    dcpl.set_chunk((8,))
    ds = h5py.Dataset(h5d.create(f.id, b'/fill_never', h5t.IEEE_F64LE, h5s.create_simple((N,)), dcpl))
    ds[0:8] = col[0:8]
    # Resizable: grown after writing, the rest fill.
    r = f.create_dataset('/resized', shape=(10,), maxshape=(None,), dtype='<f8', chunks=(4,), fillvalue=-3.0)
    r[:] = col[:10]
    r.resize((25,))
    r2 = f.create_dataset('/resized_2d', shape=(5, 3), maxshape=(None, 3), dtype='>i4', chunks=(2, 3))
    r2[:] = np.arange(15).reshape(5, 3)
    r2.resize((9, 3))
    f.create_dataset('/empty', shape=(0,), dtype='<f8')
    f.create_dataset('/empty_2d', shape=(0, 3), maxshape=(None, 3), dtype='<i4', chunks=(4, 3))
    f['/scalar'] = 4.5

# ---------------------------------------------------------------- NetCDF (netCDF4)
FORMATS = ['NETCDF3_CLASSIC', 'NETCDF3_64BIT_OFFSET', 'NETCDF3_64BIT_DATA', 'NETCDF4_CLASSIC', 'NETCDF4']
DEFAULT_FILL = netCDF4.default_fillvals

def types_of(fmt):
    classic = ['i1', 'i2', 'i4', 'f4', 'f8']
    return classic + (['u1', 'u2', 'u4', 'i8', 'u8'] if fmt in ('NETCDF3_64BIT_DATA', 'NETCDF4') else [])

def raw(v, data):
    v.set_auto_maskandscale(False)
    v[:] = data

for fmt in FORMATS:
    with netCDF4.Dataset('%s/%s.nc' % (d, fmt.lower()), 'w', format=fmt) as nc:
        nc.createDimension('x', N)
        nc.createDimension('y', 5)
        nc.createDimension('t', None)
        for dt in types_of(fmt):
            base = values(dt)
            kind = np.dtype(dt).kind
            # The type's default fill value in cells 5 and 6: netCDF4 masks it (bytes too, unless fill is off).
            withfill = base.copy()
            withfill[5:7] = np.array(DEFAULT_FILL[dt], dt)
            raw(nc.createVariable('plain_' + dt, dt, ('x',)), withfill)
            raw(nc.createVariable('fillvalue_' + dt, dt, ('x',), fill_value=base[9]), withfill)
            v = nc.createVariable('missing_' + dt, dt, ('x',))
            v.missing_value = np.array([base[10], base[11]], dt)
            raw(v, withfill)
            v = nc.createVariable('validrange_' + dt, dt, ('x',))
            v.valid_range = np.array([base[12], base[30]], dt)
            raw(v, base)
            v = nc.createVariable('validmin_' + dt, dt, ('x',))
            v.valid_min = np.array(base[20], dt)
            raw(v, base)
            v = nc.createVariable('validmax_' + dt, dt, ('x',))
            v.valid_max = np.array(base[25], 'f8')  # of another type: used when it casts exactly
            raw(v, base)
            v = nc.createVariable('grid_' + dt, dt, ('x', 'y'))
            g = values(dt, N * 5).reshape(N, 5)
            g[3, 2] = np.array(DEFAULT_FILL[dt], dt)
            raw(v, g)
            if kind == 'i':
                v = nc.createVariable('unsigned_' + dt, dt, ('x',))
                v._Unsigned = 'true'
                raw(v, withfill)
                v = nc.createVariable('unsigned_fill_' + dt, dt, ('x',), fill_value=np.array(-1, dt))
                v._Unsigned = 'true'
                v.valid_min = np.array(-100, dt)
                raw(v, np.concatenate([[-1, -2, -100, -101], base[4:]]).astype(dt))
            if kind in 'iu':
                v = nc.createVariable('validmin_fraction_' + dt, dt, ('x',))
                v.valid_min = 0.5  # not of the type: netCDF4 leaves it out
                raw(v, base)
        # Packed values: every packed type, scale and offset of float32 or float64, alone or together.
        packed = ['i1', 'i2', 'i4', 'f4', 'f8'] + (['u1', 'u2', 'i8'] if fmt in ('NETCDF3_64BIT_DATA', 'NETCDF4') else [])
        for dt in packed:
            small = (np.arange(N) * 3 - 50).astype(dt) if np.dtype(dt).kind != 'u' else (np.arange(N) * 3).astype(dt)
            for name, attrs in [
                ('f4', dict(scale_factor=np.float32(0.1), add_offset=np.float32(5.3))),
                ('f8', dict(scale_factor=0.01, add_offset=273.15)),
                ('f4f8', dict(scale_factor=np.float32(0.1), add_offset=5.3)),
                ('scale', dict(scale_factor=np.float32(2.5))),
                ('offset', dict(add_offset=-0.25)),
                ('one_zero', dict(scale_factor=np.float32(1), add_offset=np.float32(0))),
            ]:
                v = nc.createVariable('packed_%s_%s' % (name, dt), dt, ('x',))
                v.setncatts(attrs)
                data = small.copy()
                data[4] = np.array(DEFAULT_FILL[dt], dt)
                raw(v, data)
        # Integer attributes: a float array plus an integer is value-based in numpy; integer times integer wraps (refused).
        v = nc.createVariable('packed_intoffset_i4', 'i4', ('x',))
        v.scale_factor, v.add_offset = np.float32(0.01), np.int32(20)
        raw(v, (np.arange(N) * 71).astype('i4'))
        v = nc.createVariable('packed_bigintoffset_f4', 'f4', ('x',))
        v.add_offset = np.int32(100000)
        raw(v, values('f4'))
        v = nc.createVariable('packed_intscale_i2', 'i2', ('x',))
        v.scale_factor = np.int16(3)
        raw(v, (np.arange(N) * 1000).astype('i2'))
        v = nc.createVariable('packed_fill_i2', 'i2', ('x',), fill_value=np.int16(-999))
        v.scale_factor, v.add_offset, v.valid_max = np.float32(0.5), np.float32(10), np.int16(60)
        raw(v, (np.arange(N) * 3 - 50).astype('i2'))
        if fmt in ('NETCDF3_64BIT_DATA', 'NETCDF4'):
            v = nc.createVariable('packed_unsigned_i1', 'i1', ('x',))
            v._Unsigned, v.scale_factor = 'true', np.float32(0.5)
            raw(v, (np.arange(N) * 7 - 128).astype('i1'))
        # A float variable of NaN cells: refused where not masked.
        raw(nc.createVariable('nan_f4', 'f4', ('x',)), np.where(np.arange(N) == 3, np.nan, 1.5).astype('f4'))
        v = nc.createVariable('nan_missing_f8', 'f8', ('x',))
        v.missing_value = np.nan
        raw(v, np.where(np.arange(N) == 3, np.nan, 1.5))
        # Record variables, interleaved; records written in two steps.
        a = nc.createVariable('rec_i2', 'i2', ('t',))
        b = nc.createVariable('rec_f8', 'f8', ('t', 'y'))
        a[0:7] = np.arange(7)
        b[0:7] = np.arange(35.0).reshape(7, 5)
        b[9] = np.arange(5.0)  # records 7 and 8 never written: fill
        a[10] = 3
        if fmt == 'NETCDF4':
            # Fill off: bytes are not masked by their default fill, other types are.
            raw(nc.createVariable('nofill_i1', 'i1', ('x',), fill_value=False), np.where(np.arange(N) % 9 == 0, -127, np.arange(N)).astype('i1'))
            raw(nc.createVariable('nofill_u1', 'u1', ('x',), fill_value=False), np.where(np.arange(N) % 9 == 0, 255, np.arange(N)).astype('u1'))
            raw(nc.createVariable('nofill_i2', 'i2', ('x',), fill_value=False), np.where(np.arange(N) % 9 == 0, -32767, np.arange(N)).astype('i2'))
            raw(nc.createVariable('fill_u1', 'u1', ('x',)), np.where(np.arange(N) % 9 == 0, 255, np.arange(N)).astype('u1'))
            # Chunked and compressed, written in part: the rest is fill.
            v = nc.createVariable('partial_f4', 'f4', ('x', 'y'), zlib=True, shuffle=True, chunksizes=(8, 5))
            v[0:13, :] = np.arange(65.0).reshape(13, 5)
            v = nc.createVariable('partial_u8', 'u8', ('x',), chunksizes=(16,))
            v[0:20] = np.arange(20)
            g = nc.createGroup('sub')
            g.createDimension('z', 6)
            raw(g.createVariable('inner', 'i4', ('z',)), np.arange(6) - 3)
