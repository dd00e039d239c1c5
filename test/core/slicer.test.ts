import { expect, test } from "bun:test";
import { Slicer } from "../../src/core/slicer.ts";

test("a slicer gives the event loop a turn once its slice has run, and not before", async () => {
  const order: string[] = [];
  setImmediate(() => order.push("event loop"));
  await new Slicer(60_000).turn();
  order.push("within the slice");
  await new Slicer(0).turn();
  order.push("after the slice");
  expect(order).toEqual(["within the slice", "event loop", "after the slice"]);
});
