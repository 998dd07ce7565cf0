import { buildPack } from "./packages/cli/src/generate-pack.ts";
const spec = "/work/shared/specs/petstore/swagger-petstore-3.0.yaml";
const run = async (extra: object) => {
  try {
    const r = await buildPack({ name: "p", spec, out: "/nonexistent", regenerate: "", ...extra } as never, "0.0.0");
    console.log(r.report.tools, r.report.excluded, r.report.operations, r.ir.tools.map(t=>t.name).join(" "), r.report.warnings.filter(w=>w.includes("include")), JSON.stringify(r.facts.selection));
  } catch (e) { console.log("ERR", (e as any).code, (e as Error).message, (e as any).candidates); }
};
await run({ include: { tags: ["pet"] } });
await run({ include: { tags: ["pets"] } });
await run({ readOnly: true, toolPrefix: "ps_", tools: { get_pet_by_id: { name: "pet", description: "One pet." } } });
await run({ exclude: { operations: ["deletPet"] } });
await run({ tools: { get_pet_by_idd: { name: "x" } } });
await run({ readOnly: true, tools: { add_pet: { name: "x" } } });
await run({ tools: { add_pet: { name: "get_pet_by_id" } } });
await run({ tools: { add_pet: { name: "get_pet_by_id" }, get_pet_by_id: { name: "add_pet" } } });
await run({ tools: { add_pet: { name: "bad name" } } });
