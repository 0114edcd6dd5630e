import { describe, expect, it } from 'vitest';
import { redactUrl } from './redact-url.js';

describe('redactUrl', () => {
  it('replaces the password and keeps the rest', () => {
    expect(redactUrl('redis://:hunter2@kv.example:6379/1')).toBe('redis://:***@kv.example:6379/1');
    expect(redactUrl('postgres://svc:s3cret@db.example:5432/pipeline?sslmode=require'))
      .toBe('postgres://svc:***@db.example:5432/pipeline?sslmode=require');
  });

  it('never lets the password through, even when it needs escaping', () => {
    const out = redactUrl('postgres://svc:p%40ss%2Fword@db/x');
    expect(out).not.toContain('p%40ss');
    expect(out).not.toContain('p@ss');
    expect(out).toContain('svc:***@db');
  });

  it('leaves URLs without a password unchanged', () => {
    expect(redactUrl('redis://127.0.0.1:6379/0')).toBe('redis://127.0.0.1:6379/0');
    expect(redactUrl('postgres://postgres@127.0.0.1:5432/postgres')).toBe('postgres://postgres@127.0.0.1:5432/postgres');
  });

  it('says so for something that is not a URL, without echoing it', () => {
    expect(redactUrl('not a url with secret')).toBe('(unparseable URL)');
  });
});
