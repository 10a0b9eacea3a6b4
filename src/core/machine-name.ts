/**
 * A machine's name in a cluster (a node's, a hub's): lowercase letters, digits, `-` and `_`, 1 to 32, starting
 * with a letter or digit. It is a NATS subject token, a consumer's name and a file's name at once.
 */
export const MACHINE_NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;
