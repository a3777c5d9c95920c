/** The `k` docs with the highest scores (ties: lower index first), best first. */
export function topByScore(docs: readonly number[], score: Float64Array | Float32Array, k: number): number[] {
  const better = (a: number, b: number) => score[a]! > score[b]! || (score[a] === score[b] && a < b);
  if (docs.length <= k) return [...docs].sort((a, b) => (better(a, b) ? -1 : 1));
  // Min-heap of the best k seen so far: its root is the weakest of them.
  const heap: number[] = [];
  const siftDown = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let weakest = i;
      if (l < heap.length && better(heap[weakest]!, heap[l]!)) weakest = l;
      if (r < heap.length && better(heap[weakest]!, heap[r]!)) weakest = r;
      if (weakest === i) return;
      [heap[i], heap[weakest]] = [heap[weakest]!, heap[i]!];
      i = weakest;
    }
  };
  for (const d of docs) {
    if (heap.length < k) {
      heap.push(d);
      for (let i = heap.length - 1; i > 0; ) {
        const parent = (i - 1) >> 1;
        if (!better(heap[parent]!, heap[i]!)) break;
        [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
        i = parent;
      }
    } else if (better(d, heap[0]!)) {
      heap[0] = d;
      siftDown(0);
    }
  }
  return heap.sort((a, b) => (better(a, b) ? -1 : 1));
}
