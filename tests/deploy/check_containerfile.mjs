// Lints deploy/Containerfile, which cannot be built here (no container
// engine): dockerfile-utils' validator (the one behind editors' Dockerfile
// diagnostics) for syntax and instruction errors, then the shape cgward's
// image must have.
//
// Usage: node check_containerfile.mjs FILE   exit 1 on any failure.
import { readFileSync } from "node:fs";
import { validate } from "dockerfile-utils";
import { DockerfileParser } from "dockerfile-ast";

const file = process.argv[2];
const content = readFileSync(file, "utf8");
const failures = validate(content).map((d) => `line ${d.range.start.line + 1}: ${d.message}`);
const check = (ok, what) => { if (!ok) failures.push(what); };

// An instruction as one line of source: flags kept, continuations joined.
const sourceLines = content.split("\n");
function instructionText(i) {
  const { start, end } = i.getRange();
  return sourceLines.slice(start.line, end.line + 1).join("\n").replace(/\\\n\s*/g, " ").trim();
}

const stages = [];
for (const i of DockerfileParser.parse(content).getInstructions()) {
  if (i.getKeyword() === "FROM") stages.push({ from: i.getArgumentsContent(), lines: [] });
  else if (stages.length) stages.at(-1).lines.push(instructionText(i));
}
const [build, runtime] = stages;
check(stages.length === 2, `two stages, found ${stages.length}`);
check(build?.from === "debian:bookworm AS build", `build stage FROM: ${build?.from}`);
check(build?.lines.some((l) => l.startsWith("RUN ") && l.includes("make deps-build")), "build stage runs make deps-build");
check(build?.lines.some((l) => /^RUN make( |$)/.test(l)), "build stage runs make");
// make install installs the README and docs/ as the package's documentation.
check(["COPY README.md ./", "COPY docs/ docs/"].every((c) => build?.lines.includes(c)),
  "build stage copies README.md and docs/ for make install");
check(runtime?.from === "debian:bookworm-slim", `runtime stage FROM: ${runtime?.from}`);
const installs = (runtime?.lines ?? []).filter((l) => l.includes("apt-get install"));
const packages = installs.flatMap((l) => l.split(/apt-get install/)[1].split("&&")[0].trim().split(/\s+/))
  .filter((w) => !w.startsWith("-") && w !== "\\");
// cgward is a static binary: nothing to install beside it.
check(packages.length === 0, `runtime stage installs no package: ${packages}`);
check(installs.every((l) => l.includes("--no-install-recommends") && l.includes("rm -rf /var/lib/apt/lists")),
  "runtime apt-get install: --no-install-recommends, lists removed");
check(runtime?.lines.includes("COPY --from=build /out/usr/bin/cgward /usr/bin/cgward"), "runtime copies the binary");
check(runtime?.lines.includes("COPY --from=build /out/etc/cgward/policy.yaml /etc/cgward/policy.yaml"),
  "runtime copies the default policy");
check(runtime?.lines.includes('ENTRYPOINT ["/usr/bin/cgward", "agent"]'), "ENTRYPOINT exec form cgward agent");
check(runtime?.lines.includes('CMD ["--policy", "/etc/cgward/policy.yaml"]'), "CMD exec form --policy");
check(runtime?.lines.at(-1)?.startsWith("CMD "), "CMD is the last instruction");

for (const f of failures) console.log(`${file}: ${f}`);
console.log(failures.length ? `${file}: ${failures.length} failure(s)` : `${file}: ok`);
process.exit(failures.length ? 1 : 0);
