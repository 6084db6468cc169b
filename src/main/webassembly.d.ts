// Node runs WebAssembly, but @types/node 20 declares no `WebAssembly` (TypeScript has it only in lib.dom):
// the part src/main uses, so the main project needs no DOM.
declare namespace WebAssembly {
  class Module {
    constructor(bytes: ArrayBufferView | ArrayBuffer)
  }
  interface MemoryDescriptor {
    initial: number
    maximum?: number
    shared?: boolean
  }
  class Memory {
    constructor(descriptor: MemoryDescriptor)
    readonly buffer: ArrayBuffer | SharedArrayBuffer
    grow(delta: number): number
  }
  type Imports = Record<string, Record<string, unknown>>
  class Instance {
    constructor(module: Module, imports?: Imports)
    readonly exports: Record<string, unknown>
  }
  function compile(bytes: ArrayBufferView | ArrayBuffer): Promise<Module>
  function validate(bytes: ArrayBufferView | ArrayBuffer): boolean
}
