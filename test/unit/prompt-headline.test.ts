import { describe, expect, it } from 'vitest';
import { lineAsks, promptHeadline } from '../../src/core/prompt-headline.js';

describe('promptHeadline: a prompt in one line, from the line that asks', () => {
  it('a shell question after output: the question, not the output above it', () => {
    expect(promptHeadline(`${'word '.repeat(30)}\nProceed? [Y/n]`, 200)).toBe('Proceed? [Y/n]');
    const excerpt =
      'README.md\nSECURITY.md\nroot@vm:/work# read -p "Deploy to prod? (y/n) " a\nDeploy to prod? (y/n)';
    expect(promptHeadline(excerpt, 60)).toBe('Deploy to prod? (y/n)');
  });

  it('output that ends in brackets is output, not a question: left out above the question', () => {
    expect(promptHeadline('You said: [y]\nContinue? (y/n)', 200)).toBe('Continue? (y/n)');
    expect(promptHeadline('got: [hello]\nstatus: [ok]\nDownloading [1/3]\nProceed [Y/n]', 200)).toBe(
      'Proceed [Y/n]',
    );
    expect(promptHeadline('[INFO] done\nBranch: [default: main]', 200)).toBe('Branch: [default: main]');
  });

  it.each([
    ['Continue? (y/n)', true],
    ['Proceed? [Y/n]', true],
    ['Continue [y/N]', true],
    ['Overwrite (yes/no)', true],
    ['Save changes [Yes/No/Cancel]', true],
    ['Stage this hunk [y,n,q,a,d,e,?]', true],
    ['Pick one [1-3]', true],
    ['Enter choice [1-3]:', true],
    ['Branch: [default: main]', true],
    ['Version (default 1.0.0):', true],
    ['Name?', true],
    ['Password:', true],
    ['You said: [y]', false],
    ['got: [hello]', false],
    ['status: [ok]', false],
    ['Downloading [1/3]', false],
    ['[INFO] done', false],
    ['Watching [src/lib]', false],
    ['Released [2024-01-05]', false],
  ])('%j asks: %s', (line, asking) => {
    expect(lineAsks(line)).toBe(asking);
  });

  it('keeps the questions right above the one that asks last, while they fit', () => {
    const excerpt = 'Deleted 3 files.\nRemove the cache too?\nContinue? (y/n)';
    expect(promptHeadline(excerpt, 60)).toBe('Remove the cache too? Continue? (y/n)');
    expect(promptHeadline(excerpt, 20)).toBe('Continue? (y/n)');
  });

  it('a dialog: its question and what it asks about, which follows it', () => {
    expect(promptHeadline('Would you like to run the following command?\n  touch bash-no.txt', 80)).toBe(
      'Would you like to run the following command? touch bash-no.txt',
    );
    expect(promptHeadline('Question 1/2\nWhich color do you prefer?', 60)).toBe('Which color do you prefer?');
    expect(promptHeadline('Which size?\nEnter choice [1-3]:', 60)).toBe('Which size? Enter choice [1-3]:');
  });

  it('an excerpt where no line asks reads from its start; long ones are cut with an ellipsis', () => {
    expect(promptHeadline('Bash: rm -rf build\n  (cleans the output)', 60)).toBe(
      'Bash: rm -rf build (cleans the output)',
    );
    const cut = promptHeadline(`Apply this change?\n${'x'.repeat(100)}`, 40);
    expect(cut).toHaveLength(40);
    expect(cut).toMatch(/^Apply this change\? x+…$/);
  });

  it('runs of spaces and blank lines are one space; nothing at all is empty', () => {
    expect(promptHeadline('  Password:   \n\n', 60)).toBe('Password:');
    expect(promptHeadline('', 60)).toBe('');
    expect(promptHeadline('\n \n', 60)).toBe('');
  });
});
