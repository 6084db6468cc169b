// Hands bytes to the browser as a download: bytes the backend produced (base64), or bytes the page
// made itself (an animation encoded here).

export function downloadBase64(base64: string, fileName: string, mime: string): void {
  const binary = atob(base64)
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  downloadBytes(bytes, fileName, mime)
}

export function downloadBytes(data: Uint8Array | string, fileName: string, mime: string): void {
  const url = URL.createObjectURL(new Blob([data as BlobPart], { type: mime }))
  const link = document.createElement('a')
  link.href = url
  link.download = fileName
  link.style.display = 'none'
  document.body.append(link)
  link.click()
  link.remove()
  // The download has started from the click; the next task may let the bytes go.
  setTimeout(() => URL.revokeObjectURL(url), 0)
}

/** Downloads what the server sends at `url` (a file it streams, too large for a reply): the browser writes it as it comes. */
export function downloadUrl(url: string, fileName: string): void {
  const link = document.createElement('a')
  link.href = url
  link.download = fileName
  link.style.display = 'none'
  document.body.append(link)
  link.click()
  link.remove()
}
