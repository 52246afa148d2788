// Merged, sorted integer intervals with point membership by binary search:
// the union of replace ranges seen so far while the fold is rebuilt.

/**
 * A union of inclusive integer ranges, kept merged and sorted, with point
 * membership by binary search. It holds the replace ranges seen so far while
 * the fold is rebuilt newest first, so testing whether an event is shadowed
 * costs O(log n) instead of a scan of every range (docs/behaviour.md §2.4).
 */
export class IntervalSet {
  private readonly starts: number[] = [];
  private readonly stops: number[] = [];

  /** Whether `point` lies in one of the ranges. */
  contains(point: number): boolean {
    const i = this.lastStartAtOrBefore(point);
    return i >= 0 && point <= this.stops[i]!;
  }

  /** Adds the inclusive range `[start, stop]`, merging it with every range it overlaps or touches. */
  add(start: number, stop: number): void {
    // Intervals touching or overlapping [start - 1, stop + 1] merge with it.
    let first = this.lastStartAtOrBefore(start);
    if (first < 0 || this.stops[first]! < start - 1) first++;
    let last = first;
    while (last < this.starts.length && this.starts[last]! <= stop + 1) last++;
    if (last > first) {
      start = Math.min(start, this.starts[first]!);
      stop = Math.max(stop, this.stops[last - 1]!);
    }
    this.starts.splice(first, last - first, start);
    this.stops.splice(first, last - first, stop);
  }

  private lastStartAtOrBefore(point: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.starts[mid]! <= point) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }
}
