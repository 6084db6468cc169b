import { describe, expect, it } from 'vitest'
import { adapterName } from '../../src/shared/device'

describe('adapterName', () => {
  it('prefers the description, and the device name where the description is only a driver version', () => {
    expect(adapterName({ description: 'SwiftShader driver 5.0.0', device: 'swiftshader-device-subzero-', vendor: 'google' })).toBe('SwiftShader driver 5.0.0')
    expect(adapterName({ description: 'NVIDIA: 580.159.04 580.159.4.0', device: 'nvidia-h100-80gb-hbm3', vendor: 'nvidia' })).toBe('nvidia-h100-80gb-hbm3')
    expect(adapterName({ description: '', device: '', vendor: 'acme' })).toBe('acme')
  })
})
