// Byte sizes shared by the buffer modules.
export const MiB = 1 << 20
export const align4 = (n: number): number => Math.ceil(n / 4) * 4
