/**
 * Strongly connected components (Tarjan), iterative so a long import chain cannot overflow the
 * stack, and the shortest cycle through a component (for showing a cycle as a path).
 */

export function stronglyConnected(nodes: Iterable<string>, successors: (node: string) => Iterable<string>): string[][] {
  const index = new Map<string, number>();
  const lowlink = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;

  for (const start of nodes) {
    if (index.has(start)) continue;
    // Each frame: the node and an iterator over its successors, resumed after a child finishes.
    const frames: Array<{ node: string; next: Iterator<string> }> = [];
    const enter = (node: string) => {
      index.set(node, counter);
      lowlink.set(node, counter);
      counter++;
      stack.push(node);
      onStack.add(node);
      frames.push({ node, next: successors(node)[Symbol.iterator]() });
    };
    enter(start);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!;
      const step = frame.next.next();
      if (!step.done) {
        const child = step.value;
        if (!index.has(child)) enter(child);
        else if (onStack.has(child)) lowlink.set(frame.node, Math.min(lowlink.get(frame.node)!, index.get(child)!));
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent) lowlink.set(parent.node, Math.min(lowlink.get(parent.node)!, lowlink.get(frame.node)!));
      if (lowlink.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        for (;;) {
          const member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
          if (member === frame.node) break;
        }
        components.push(component);
      }
    }
  }
  return components;
}

/** The shortest path start → … → start inside `members` (breadth-first), as the list of nodes without the repeated start. */
export function shortestCycle(start: string, members: ReadonlySet<string>, successors: (node: string) => Iterable<string>): string[] {
  const previous = new Map<string, string>();
  const queue: string[] = [start];
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head]!;
    for (const next of successors(node)) {
      if (!members.has(next)) continue;
      if (next === start) {
        const path = [node];
        let current = node;
        while (current !== start) {
          current = previous.get(current)!;
          path.push(current);
        }
        return path.reverse();
      }
      if (!previous.has(next) && next !== start) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start];
}
