/**
 * Which host tools the hook looks at. Kept apart from the decision logic so that a call to any
 * other tool is answered without loading the shell parser or the configuration.
 */

/** Direct edits of existing files, per host (Claude Code, Codex, Copilot CLI, VS Code). */
const EDIT_TOOLS = new Set([
  "Edit",
  "MultiEdit",
  "NotebookEdit",
  "apply_patch",
  "edit",
  "str_replace",
  "str_replace_editor",
  "replace_string_in_file",
  "multi_replace_string_in_file",
  "insert_edit_into_file",
  "editFiles",
  "edit_notebook_file",
]);
/** Tools that create or overwrite whole files. */
const WRITE_TOOLS = new Set(["Write", "create", "write", "create_file", "createFile"]);
/** Tools that run a shell command line. */
const SHELL_TOOLS = new Set(["Bash", "bash", "shell", "exec_command", "local_shell", "run_in_terminal", "runInTerminal", "runTerminalCommand", "run_terminal_command"]);

export type ToolKind = "edit" | "write" | "shell" | "other";

export function toolKind(name: string): ToolKind {
  if (EDIT_TOOLS.has(name)) return "edit";
  if (WRITE_TOOLS.has(name)) return "write";
  if (SHELL_TOOLS.has(name)) return "shell";
  return "other";
}
