// Worker thread entry: h5wasm's synchronous reads of HDF5 files, off the main thread.
import { serveTasks, transferable } from '../../workers/serve-tasks'
import { listHdf5, readHdf5Rows, readHdf5Strings, type RowsRequest } from './hdf5-read'

serveTasks({
  listHdf5,
  readHdf5Strings,
  readHdf5Rows: async (req: RowsRequest) => {
    const rows = await readHdf5Rows(req)
    return transferable(rows, [rows.values.buffer as ArrayBuffer])
  },
})
