import { describe, expect, it } from 'vitest';
import { discardedParagraph, initPullRequestBody, listedForPeople, paragraphOf } from './init-texts.js';

describe('what the pull request says was dropped', () => {
  it('lists up to 20 changes, then counts the rest', () => {
    const many = Array.from({ length: 23 }, (_, i) => `f${i} (added)`);
    expect(listedForPeople(many)).toBe(`${many.slice(0, 20).join(', ')} and 3 more`);
    expect(listedForPeople(['a (modified)'])).toBe('a (modified)');
  });

  it('names each path as code with its status, and survives a run that writes nothing new', () => {
    const discarded = discardedParagraph('agent', ['.service/contexts/main/context.yaml (modified)', 'src/x y.js (type-changed)']);
    expect(discarded).toMatch(/^The agent writer also changed `\.service\/contexts\/main\/context\.yaml` \(modified\), `src\/x y\.js` \(type-changed\); those changes were dropped/);
    const body = initPullRequestBody('shop', ['.service/contexts/main/principles.md'], 'Written by the model.', discarded);
    expect(paragraphOf('Discarded', body)).toBe(discarded);
    expect(paragraphOf('How', body)).toBe('Written by the model.');
    expect(paragraphOf('Discarded', initPullRequestBody('shop', [], 'How.'))).toBeNull();
  });
});
