// Discord's limits on what a message or modal may hold; a violation is 400 / 50035 with the field's path.
import { FormErrors } from './errors.js';
import type { Json } from './types.js';

const IS_COMPONENTS_V2 = 1 << 15;
const SELECT_TYPES = new Set([3, 5, 6, 7, 8]);

const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const asObject = (value: unknown): Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};

function checkButton(
  button: Json,
  path: Array<string | number>,
  errors: FormErrors,
  seen: Set<string>,
): void {
  const style = Number(button['style']);
  if (!Number.isInteger(style) || style < 1 || style > 6)
    errors.add([...path, 'style'], 'BASE_TYPE_CHOICES', 'Value must be one of {1, 2, 3, 4, 5, 6}.');
  errors.maxLength([...path, 'label'], button['label'], 80);
  if (style === 5) {
    if (typeof button['url'] !== 'string')
      errors.add([...path, 'url'], 'BASE_TYPE_REQUIRED', 'This field is required');
    if (button['custom_id'] !== undefined)
      errors.add(
        [...path, 'custom_id'],
        'BUTTON_COMPONENT_CUSTOM_ID_NOT_ALLOWED',
        'A custom id is not allowed',
      );
  } else if (style !== 6) {
    if (typeof button['custom_id'] !== 'string' || button['custom_id'] === '')
      errors.add([...path, 'custom_id'], 'BASE_TYPE_REQUIRED', 'This field is required');
  }
  if (button['label'] === undefined && button['emoji'] === undefined)
    errors.add(path, 'BUTTON_COMPONENT_LABEL_OR_EMOJI_REQUIRED', 'A label or an emoji is required');
  checkCustomId(button, path, errors, seen);
}

function checkCustomId(
  component: Json,
  path: Array<string | number>,
  errors: FormErrors,
  seen: Set<string>,
): void {
  const customId = component['custom_id'];
  if (typeof customId !== 'string') return;
  errors.maxLength([...path, 'custom_id'], customId, 100);
  if (seen.has(customId))
    errors.add(
      [...path, 'custom_id'],
      'COMPONENT_CUSTOM_ID_DUPLICATED',
      'Component custom id cannot be duplicated',
    );
  seen.add(customId);
}

function checkRow(row: Json, path: Array<string | number>, errors: FormErrors, seen: Set<string>): void {
  if (row['type'] !== 1) {
    errors.add(path, 'UNION_TYPE_CHOICES', 'Value of field "type" must be one of (1,).');
    return;
  }
  const children = asArray(row['components']);
  if (children.length < 1 || children.length > 5)
    errors.add([...path, 'components'], 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 5 in length.');
  children.forEach((child, index) => {
    const component = asObject(child);
    const childPath = [...path, 'components', index];
    if (component['type'] === 2) checkButton(component, childPath, errors, seen);
    else if (SELECT_TYPES.has(Number(component['type']))) {
      if (children.length > 1)
        errors.add(
          childPath,
          'COMPONENT_LAYOUT_WIDTH_EXCEEDED',
          'The specified component exceeds the maximum width',
        );
      errors.maxLength([...childPath, 'placeholder'], component['placeholder'], 150);
      if (asArray(component['options']).length > 25)
        errors.add([...childPath, 'options'], 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 25 in length.');
      checkCustomId(component, childPath, errors, seen);
    } else
      errors.add([...childPath, 'type'], 'UNION_TYPE_CHOICES', 'Invalid component type for an action row');
  });
}

/** Action rows (max 5) of buttons (max 5 per row) or one select menu; Components V2 messages are not checked. */
export function checkComponents(components: unknown, flags: unknown, errors: FormErrors): void {
  if (components === undefined || components === null) return;
  if (Number(flags ?? 0) & IS_COMPONENTS_V2) return;
  const rows = asArray(components);
  if (rows.length > 5) errors.add(['components'], 'BASE_TYPE_MAX_LENGTH', 'Must be 5 or fewer in length.');
  const seen = new Set<string>();
  rows.forEach((row, index) => checkRow(asObject(row), ['components', index], errors, seen));
}

function embedSize(embed: Json): number {
  const text = (value: unknown): number => (typeof value === 'string' ? value.length : 0);
  const fields = asArray(embed['fields']).map(asObject);
  return (
    text(embed['title']) +
    text(embed['description']) +
    text(asObject(embed['footer'])['text']) +
    text(asObject(embed['author'])['name']) +
    fields.reduce((sum, field) => sum + text(field['name']) + text(field['value']), 0)
  );
}

export function checkEmbeds(embeds: unknown, errors: FormErrors): void {
  const list = asArray(embeds).map(asObject);
  if (list.length > 10) errors.add(['embeds'], 'BASE_TYPE_MAX_LENGTH', 'Must be 10 or fewer in length.');
  list.forEach((embed, index) => {
    const path = ['embeds', index];
    errors.maxLength([...path, 'title'], embed['title'], 256);
    errors.maxLength([...path, 'description'], embed['description'], 4096);
    errors.maxLength([...path, 'footer', 'text'], asObject(embed['footer'])['text'], 2048);
    errors.maxLength([...path, 'author', 'name'], asObject(embed['author'])['name'], 256);
    const fields = asArray(embed['fields']).map(asObject);
    if (fields.length > 25)
      errors.add([...path, 'fields'], 'BASE_TYPE_MAX_LENGTH', 'Must be 25 or fewer in length.');
    fields.forEach((field, at) => {
      errors.maxLength([...path, 'fields', at, 'name'], field['name'], 256);
      errors.maxLength([...path, 'fields', at, 'value'], field['value'], 1024);
    });
  });
  if (list.reduce((sum, embed) => sum + embedSize(embed), 0) > 6000)
    errors.add(['embeds'], 'MAX_EMBED_SIZE_EXCEEDED', 'Embed size exceeds maximum size of 6000');
}

/** Throws 400 / 50035 when content, embeds or components break Discord's limits. */
export function checkMessagePayload(payload: Json): void {
  const errors = new FormErrors();
  errors.maxLength(['content'], payload['content'], 2000);
  checkEmbeds(payload['embeds'], errors);
  checkComponents(payload['components'], payload['flags'], errors);
  errors.throwIfAny();
}

function checkModalInput(input: Json, path: Array<string | number>, errors: FormErrors): void {
  if (input['type'] !== 4) return;
  errors.maxLength([...path, 'custom_id'], input['custom_id'], 100);
  errors.maxLength([...path, 'label'], input['label'], 45);
  errors.maxLength([...path, 'placeholder'], input['placeholder'], 100);
  errors.maxLength([...path, 'value'], input['value'], 4000);
}

/** A modal (type 9 callback): custom_id ≤ 100, title ≤ 45, 1 to 5 rows or labels holding one input each. */
export function checkModal(data: Json): void {
  const errors = new FormErrors();
  if (typeof data['custom_id'] !== 'string')
    errors.add(['data', 'custom_id'], 'BASE_TYPE_REQUIRED', 'This field is required');
  errors.maxLength(['data', 'custom_id'], data['custom_id'], 100);
  if (typeof data['title'] !== 'string')
    errors.add(['data', 'title'], 'BASE_TYPE_REQUIRED', 'This field is required');
  errors.maxLength(['data', 'title'], data['title'], 45);
  const rows = asArray(data['components']).map(asObject);
  if (rows.length < 1 || rows.length > 5)
    errors.add(['data', 'components'], 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 5 in length.');
  rows.forEach((row, index) => {
    const path = ['data', 'components', index];
    if (row['type'] === 18) checkModalInput(asObject(row['component']), [...path, 'component'], errors);
    else
      asArray(row['components']).forEach((c, at) =>
        checkModalInput(asObject(c), [...path, 'components', at], errors),
      );
  });
  errors.throwIfAny();
}

/** Text inputs (type 4) of a shown modal, whether in action rows or in labels (type 18). */
export function modalInputs(data: Json): Array<{ customId: string; inLabel: boolean }> {
  return asArray(data['components'])
    .map(asObject)
    .flatMap((row): Array<{ customId: string; inLabel: boolean }> => {
      if (row['type'] === 18) {
        const input = asObject(row['component']);
        return typeof input['custom_id'] === 'string'
          ? [{ customId: input['custom_id'], inLabel: true }]
          : [];
      }
      return asArray(row['components'])
        .map(asObject)
        .flatMap((input) =>
          typeof input['custom_id'] === 'string' ? [{ customId: input['custom_id'], inLabel: false }] : [],
        );
    });
}
