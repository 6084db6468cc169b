// `npm run test:quick`: the unit and renderer tests and a few SwiftShader kernel tests, for a
// newcomer's edit-and-check loop in minutes on 2 cores. Left to `npm test` (what CI runs): the
// dashboard in Chromium and the end-to-end runs (test/e2e), every format's fuzzing and conformance
// against its reference tool, and the kernel and model tests that take minutes on a software GPU.
// Measured: 3 min 22 s with the build, on the 2-core machine while other work ran (load 2–4).
import { configDefaults, defineConfig } from 'vitest/config'
import base from './vitest.config'

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/unit/**/*.test.ts', 'test/renderer/**/*.test.ts', 'test/gpu/landslide-fused2.test.ts', 'test/gpu/stats-gpu.test.ts', 'test/gpu/pipeline-reuse.test.ts'],
    exclude: [
      ...configDefaults.exclude,
      'test/unit/*-fuzz.test.ts',
      'test/unit/*-conformance.test.ts',
      'test/unit/landslide-model.test.ts',
      'test/unit/hdf5-netcdf.test.ts',
      'test/unit/hdf5-hostile.test.ts',
      'test/unit/landslide-geotiff.test.ts',
      'test/unit/hardening-inputs.test.ts',
      'test/unit/stats-range-gpu.test.ts',
      'test/unit/heatmap-scale.test.ts',
      'test/unit/paths-large.test.ts',
      'test/unit/rerun.test.ts',
      'test/unit/correlation-wasm-builds.test.ts',
      'test/unit/correlation-names.test.ts',
      'test/unit/landslide-c-baseline.test.ts',
      // Compared with SciPy and GDAL run at test time.
      'test/unit/paths-real.test.ts',
      'test/unit/geotiff-gdal.test.ts',
    ],
  },
})
