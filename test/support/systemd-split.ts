/** Splits an ExecStart= value back into arguments (the subset of syntax renderSystemdCommand writes), as systemd reads it. */
export function splitSystemdCommand(line: string): string[] {
  const args: string[] = [];
  let index = 0;
  while (index < line.length) {
    while (index < line.length && /\s/.test(line[index] as string)) index++;
    if (index >= line.length) break;
    let arg = "";
    if (line[index] === "\"") {
      index++;
      while (index < line.length && line[index] !== "\"") {
        if (line[index] === "\\" && index + 1 < line.length) index++;
        arg += line[index];
        index++;
      }
      index++;
    } else {
      while (index < line.length && !/\s/.test(line[index] as string)) arg += line[index++];
    }
    args.push(arg.replace(/%%/g, "%").replace(/\$\$/g, "$"));
  }
  return args;
}
