import type { AgentEvent } from '../../core/events.js';

/**
 * What a pure protocol converter asks of its driver: events for the stream, text the agent is saying (sent as
 * one message when it pauses), the agent's own conversation id (for resume).
 */
export type ProtocolEffect =
  AgentEvent | { type: 'say'; text: string } | { type: 'agent_session'; id: string };
