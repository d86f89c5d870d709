// What the test renders: the plugin, its pane and its client.
export { default } from "../src/main";
export { NoteView } from "../src/view";
export { MindnetClient, ServerError } from "../src/api";
export { ChatView } from "../src/chat";
