/**
 * Failed password checks counted per key (a login, a client address) in fixed windows. A key that reached its limit
 * is refused until its window ends, without checking the password: a burst of wrong passwords then costs no scrypt,
 * which is what slowed every other request. A check counts from its start, so that a burst of concurrent requests
 * cannot all pass before the first failure is known; a success takes its count back.
 */
export interface FailureThrottle {
  /** Seconds until `key` may try again, or undefined when it may try now. */
  readonly retryAfter: (key: string) => number | undefined
  /** Counts one check of `key`. */
  readonly begin: (key: string) => void
  /** Takes back the count of a check that succeeded. */
  readonly succeeded: (key: string) => void
}

interface Window {
  count: number
  readonly endsAt: number
}

/** At most `maxKeys` windows are kept: ended ones go first, then the oldest, so memory stays bounded under any load. */
export const makeFailureThrottle = (limit: number, windowMs: number, maxKeys: number): FailureThrottle => {
  const windows = new Map<string, Window>()
  const live = (key: string, now: number) => {
    const window = windows.get(key)
    if (window === undefined || window.endsAt > now) return window
    windows.delete(key)
    return undefined
  }
  const makeRoom = (now: number) => {
    for (const [key, window] of windows) if (window.endsAt <= now) windows.delete(key)
    const oldest = windows.keys().next()
    if (windows.size >= maxKeys && oldest.done !== true) windows.delete(oldest.value)
  }
  return {
    retryAfter: (key) => {
      const now = Date.now()
      const window = live(key, now)
      return window !== undefined && window.count >= limit ? Math.ceil((window.endsAt - now) / 1000) : undefined
    },
    begin: (key) => {
      const now = Date.now()
      const window = live(key, now)
      if (window !== undefined) {
        window.count += 1
        return
      }
      if (windows.size >= maxKeys) makeRoom(now)
      windows.set(key, { count: 1, endsAt: now + windowMs })
    },
    succeeded: (key) => {
      const window = live(key, Date.now())
      if (window !== undefined && window.count > 0) window.count -= 1
    }
  }
}
