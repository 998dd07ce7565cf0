import { describe, expect, it } from "vitest";
import { cyclicComponents, reachable, refGraph, ROOT, stronglyConnectedComponents } from "../src/index.ts";

type Graph = Map<string, string[]>;
const graphOf = (edges: Record<string, string[]>): Graph => new Map(Object.entries(edges));

function ring(size: number): Graph {
  const graph: Graph = new Map();
  for (let i = 0; i < size; i++) graph.set(`N${i}`, [`N${(i + 1) % size}`]);
  return graph;
}

/** Deterministic pseudo-random graph (mulberry32), so a failure reproduces. */
function randomGraph(nodes: number, edges: number, seed: number): Graph {
  let state = seed;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const graph: Graph = new Map();
  for (let i = 0; i < nodes; i++) graph.set(`N${i}`, []);
  for (let e = 0; e < edges; e++) graph.get(`N${Math.floor(next() * nodes)}`)!.push(`N${Math.floor(next() * nodes)}`);
  return graph;
}

/** Every edge between two components goes from a later component to an earlier one. */
function expectReverseTopological(graph: Graph, components: string[][]): void {
  const componentOf = new Map<string, number>();
  components.forEach((members, index) => members.forEach((m) => componentOf.set(m, index)));
  for (const [from, targets] of graph) {
    for (const to of targets) expect(componentOf.get(to)!, `${from} -> ${to}`).toBeLessThanOrEqual(componentOf.get(from)!);
  }
}

/** Components by definition: two nodes are together when each reaches the other. */
function bruteForceComponents(graph: Graph): string[][] {
  const reach = new Map([...graph.keys()].map((n) => [n, reachable(graph, n)]));
  const done = new Set<string>();
  const components: string[][] = [];
  for (const node of graph.keys()) {
    if (done.has(node)) continue;
    const members = [...graph.keys()].filter((other) => reach.get(node)!.has(other) && reach.get(other)!.has(node)).sort();
    members.forEach((m) => done.add(m));
    components.push(members);
  }
  return components;
}

const sortedSet = (components: string[][]) => components.map((c) => c.join(",")).sort();

describe("stronglyConnectedComponents", () => {
  it.each<[string, { given: Graph; want: string[][]; cyclic: string[][] }]>([
    ["single node, no edge", { given: graphOf({ A: [] }), want: [["A"]], cyclic: [] }],
    ["self-loop", { given: graphOf({ A: ["A"] }), want: [["A"]], cyclic: [["A"]] }],
    ["2-cycle", { given: graphOf({ A: ["B"], B: ["A"] }), want: [["A", "B"]], cyclic: [["A", "B"]] }],
    ["chain is a DAG, leaves first", { given: graphOf({ A: ["B"], B: ["C"], C: [] }), want: [["C"], ["B"], ["A"]], cyclic: [] }],
    [
      "diamond DAG",
      { given: graphOf({ A: ["B", "C"], B: ["D"], C: ["D"], D: [] }), want: [["D"], ["B"], ["C"], ["A"]], cyclic: [] },
    ],
    [
      "cycle reached from outside, with a self-loop below it",
      { given: graphOf({ R: ["X"], X: ["Y"], Y: ["X", "S"], S: ["S"] }), want: [["S"], ["X", "Y"], ["R"]], cyclic: [["S"], ["X", "Y"]] },
    ],
    ["targets missing from the keys are still components", { given: graphOf({ A: ["Z"] }), want: [["Z"], ["A"]], cyclic: [] }],
  ])("%s", (_name, { given, want, cyclic }) => {
    const components = stronglyConnectedComponents(given);
    expect(components).toEqual(want);
    expect(cyclicComponents(given)).toEqual(cyclic);
  });

  it("a 50-node ring is one cyclic component", () => {
    const graph = ring(50);
    const components = stronglyConnectedComponents(graph);
    expect(components).toHaveLength(1);
    expect(components[0]).toHaveLength(50);
    expect(components[0]).toEqual([...graph.keys()].sort());
    expect(cyclicComponents(graph)).toEqual(components);
  });

  it("a ring with a tail: the ring is listed before the tail that reaches it", () => {
    const graph = ring(50);
    graph.set("Tail", ["N17"]);
    graph.set("Head", ["Tail"]);
    const components = stronglyConnectedComponents(graph);
    expect(components.map((c) => c.length)).toEqual([50, 1, 1]);
    expect(components.slice(1)).toEqual([["Tail"], ["Head"]]);
  });

  it("a DAG has no cyclic component, and every node is its own component", () => {
    const graph: Graph = new Map();
    for (let i = 0; i < 30; i++) graph.set(`N${i}`, [`N${i + 1}`, `N${i + 2}`, `N${i + 7}`].filter((n) => Number(n.slice(1)) < 30));
    const components = stronglyConnectedComponents(graph);
    expect(components).toHaveLength(30);
    expect(cyclicComponents(graph)).toEqual([]);
    expectReverseTopological(graph, components);
  });

  it.each([1, 2, 3, 4, 5, 6, 7, 8])("matches the definition on a random graph (seed %i) and orders components reverse-topologically", (seed) => {
    const graph = randomGraph(40, 55, seed);
    const components = stronglyConnectedComponents(graph);
    expect(sortedSet(components)).toEqual(sortedSet(bruteForceComponents(graph)));
    expectReverseTopological(graph, components);
  });

  it("is iterative: a 100,000-node chain and a 100,000-node ring do not overflow the stack", () => {
    const chain: Graph = new Map();
    for (let i = 0; i < 100_000; i++) chain.set(`N${i}`, i + 1 < 100_000 ? [`N${i + 1}`] : []);
    const components = stronglyConnectedComponents(chain);
    expect(components).toHaveLength(100_000);
    expect(components[0]).toEqual(["N99999"]);
    expect(stronglyConnectedComponents(ring(100_000))).toHaveLength(1);
  });

  it("works on a schema's ref graph, ROOT included", () => {
    const graph = refGraph({
      properties: { a: { $ref: "#/$defs/A" }, s: { $ref: "#/$defs/Self" } },
      $defs: { A: { properties: { b: { $ref: "#/$defs/B" } } }, B: { items: { $ref: "#/$defs/A" } }, Self: { $ref: "#/$defs/Self" }, Dead: {} },
    });
    expect(cyclicComponents(graph)).toEqual([["A", "B"], ["Self"]]);
    const components = stronglyConnectedComponents(graph);
    expect(components.find((c) => c.includes(ROOT))).toEqual([ROOT]);
    expectReverseTopological(graph, components);
  });
});
