// Block Kit checks, with Slack's limits: what a message, a modal or a home tab may hold.
import type { Json } from './types.js';

export class BlocksError extends Error {
  constructor(readonly errors: string[]) {
    super(errors[0]);
  }
}

const LIMITS = { message: 50, modal: 100, home: 100 } as const;

/** Throws BlocksError (Slack's `invalid_blocks`) with every problem, each with its JSON pointer. */
export function checkBlocks(blocks: unknown, surface: keyof typeof LIMITS): Json[] {
  const errors: string[] = [];
  if (!Array.isArray(blocks)) throw new BlocksError(['must be an array [json-pointer:/blocks]']);
  if (blocks.length > LIMITS[surface])
    errors.push(`no more than ${LIMITS[surface]} items allowed [json-pointer:/blocks]`);
  const blockIds = new Set<string>();
  const actionIds = new Set<string>();
  blocks.forEach((block: unknown, i) => {
    const at = `/blocks/${i}`;
    if (!isObject(block) || typeof block['type'] !== 'string')
      return errors.push(`missing type [json-pointer:${at}]`);
    const id = block['block_id'];
    if (id !== undefined) {
      if (typeof id !== 'string' || id.length > 255)
        errors.push(`must be at most 255 characters [json-pointer:${at}/block_id]`);
      else if (blockIds.has(id)) errors.push(`duplicate block_id [json-pointer:${at}/block_id]`);
      else blockIds.add(id);
    }
    errors.push(...checkBlock(block, at, surface, actionIds));
  });
  if (errors.length > 0) throw new BlocksError(errors);
  return blocks as Json[];
}

function checkBlock(block: Json, at: string, surface: string, actionIds: Set<string>): string[] {
  switch (block['type']) {
    case 'section':
      return [
        ...checkText(
          block['text'],
          `${at}/text`,
          3_000,
          ['mrkdwn', 'plain_text'],
          block['fields'] === undefined,
        ),
        ...(Array.isArray(block['fields'])
          ? block['fields'].length > 10
            ? [`no more than 10 items allowed [json-pointer:${at}/fields]`]
            : block['fields'].flatMap((f, j) =>
                checkText(f, `${at}/fields/${j}`, 2_000, ['mrkdwn', 'plain_text']),
              )
          : []),
      ];
    case 'context': {
      const elements = block['elements'];
      if (!Array.isArray(elements) || elements.length === 0 || elements.length > 10)
        return [`must have 1 to 10 elements [json-pointer:${at}/elements]`];
      return elements.flatMap((e, j) => checkText(e, `${at}/elements/${j}`, 3_000, ['mrkdwn', 'plain_text']));
    }
    case 'actions': {
      const elements = block['elements'];
      if (!Array.isArray(elements) || elements.length === 0 || elements.length > 25)
        return [`must have 1 to 25 elements [json-pointer:${at}/elements]`];
      return elements.flatMap((e, j) => checkButton(e, `${at}/elements/${j}`, actionIds));
    }
    case 'header':
      return checkText(block['text'], `${at}/text`, 150, ['plain_text']);
    case 'divider':
      return [];
    case 'input':
      if (surface !== 'modal') return [`input blocks are for modals [json-pointer:${at}]`];
      return [
        ...checkText(block['label'], `${at}/label`, 2_000, ['plain_text']),
        ...(isObject(block['element']) && block['element']['type'] === 'plain_text_input'
          ? checkId(block['element']['action_id'], `${at}/element/action_id`)
          : [`unsupported element [json-pointer:${at}/element]`]),
      ];
    default:
      return [`unsupported type: ${String(block['type'])} [json-pointer:${at}/type]`];
  }
}

function checkButton(element: unknown, at: string, actionIds: Set<string>): string[] {
  if (!isObject(element) || element['type'] !== 'button')
    return [`only buttons are supported here [json-pointer:${at}]`];
  const errors = [
    ...checkText(element['text'], `${at}/text`, 75, ['plain_text']),
    ...checkId(element['action_id'], `${at}/action_id`),
  ];
  const actionId = element['action_id'];
  if (typeof actionId === 'string') {
    if (actionIds.has(actionId)) errors.push(`duplicate action_id [json-pointer:${at}/action_id]`);
    actionIds.add(actionId);
  }
  const value = element['value'];
  if (value !== undefined && (typeof value !== 'string' || value.length > 2_000))
    errors.push(`must be at most 2000 characters [json-pointer:${at}/value]`);
  const style = element['style'];
  if (style !== undefined && style !== 'primary' && style !== 'danger')
    errors.push(`must be primary or danger [json-pointer:${at}/style]`);
  return errors;
}

function checkId(id: unknown, at: string): string[] {
  return typeof id === 'string' && id.length > 0 && id.length <= 255
    ? []
    : [`must be 1 to 255 characters [json-pointer:${at}]`];
}

function checkText(text: unknown, at: string, max: number, types: string[], required = true): string[] {
  if (text === undefined && !required) return [];
  if (!isObject(text) || !types.includes(String(text['type'])))
    return [`must be a text object of type ${types.join(' or ')} [json-pointer:${at}]`];
  const value = text['text'];
  if (typeof value !== 'string' || value.length === 0) return [`must not be empty [json-pointer:${at}/text]`];
  if ([...value].length > max) return [`must be less than ${max + 1} characters [json-pointer:${at}/text]`];
  return [];
}

/** Every string under `text` keys: what counts toward `msg_blocks_too_long`. */
export function blocksLength(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, v) => sum + blocksLength(v), 0);
  if (!isObject(value)) return 0;
  return Object.entries(value).reduce(
    (sum, [key, v]) => sum + (key === 'text' && typeof v === 'string' ? v.length : blocksLength(v)),
    0,
  );
}

/** Whether `blocks` show an enabled button with this action_id. */
export function showsButton(blocks: Json[], actionId: string): boolean {
  return buttonsIn(blocks).some((b) => b['action_id'] === actionId);
}

export function buttonsIn(blocks: Json[]): Json[] {
  return blocks.flatMap((block) =>
    block['type'] === 'actions' && Array.isArray(block['elements']) ? (block['elements'] as Json[]) : [],
  );
}

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
