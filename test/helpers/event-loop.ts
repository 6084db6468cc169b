// How long the event loop went unanswered while something ran: a 5 ms timer's longest gap.
export function watchEventLoop(): { stop: () => number } {
  let last = performance.now()
  let longest = 0
  const timer = setInterval(() => {
    const now = performance.now()
    longest = Math.max(longest, now - last)
    last = now
  }, 5)
  return {
    stop: () => {
      clearInterval(timer)
      return longest
    },
  }
}
