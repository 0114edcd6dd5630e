import { describe, expect, it } from 'vitest';
import { Platform } from '../platforms/platform.js';
import { commandText, parseCommand, ticketReference } from './command-text.js';

describe('commandText', () => {
  it('recognises the three prefixes at the start of a comment, alone or followed by whitespace', () => {
    expect(commandText('/service-agent code 42')).toBe('code 42');
    expect(commandText('/serviceagent')).toBe('');
    expect(commandText('  /sa\nplease rename the flag')).toBe('please rename the flag');
    expect(commandText('/SA review')).toBe('review');
  });

  it('leaves near misses and later mentions alone', () => {
    for (const body of ['/sa-is fine', '/sabotage', '/assign @me', '/service-agents', 'please /sa review', '/s a', 'sa review', '/serviceagent:code']) {
      expect(commandText(body), body).toBeNull();
    }
  });
});

describe('ticketReference', () => {
  it('reads numbers on GitHub, GitLab and Azure DevOps, keys on Jira', () => {
    expect(ticketReference('#42', Platform.GitHub)).toBe('42');
    expect(ticketReference('42,', Platform.GitLab)).toBe('42');
    expect(ticketReference('AB#7', Platform.AzureDevOps)).toBe('7');
    expect(ticketReference('bill-12', Platform.Jira)).toBe('BILL-12');
    expect(ticketReference('BILL-12', Platform.GitHub)).toBeNull();
    expect(ticketReference('42', Platform.Jira)).toBeNull();
    expect(ticketReference('#0', Platform.GitHub)).toBeNull();
  });
});

describe('parseCommand', () => {
  const gh = Platform.GitHub;

  it('help alone is help; help with more is free text', () => {
    expect(parseCommand('help', gh)).toEqual({ kind: 'help' });
    expect(parseCommand('HELP', gh)).toEqual({ kind: 'help' });
    expect(parseCommand('help me fix this', gh)).toEqual({ kind: 'free', text: 'help me fix this' });
  });

  it('nothing after the prefix is a bare command', () => {
    expect(parseCommand('', gh)).toEqual({ kind: 'bare', instructions: null });
    expect(parseCommand('  \n ', gh)).toEqual({ kind: 'bare', instructions: null });
  });

  it('a pipeline, an optional ticket (with filler words) and instructions over following lines', () => {
    expect(parseCommand('code #42', gh)).toEqual({ kind: 'run', pipeline: 'code', ticket: '42', instructions: null });
    expect(parseCommand('security-scan', gh)).toEqual({ kind: 'run', pipeline: 'security-scan', ticket: null, instructions: null });
    expect(parseCommand('review for BILL-3 carefully\nmind the cache', Platform.Jira))
      .toEqual({ kind: 'run', pipeline: 'pr-review', ticket: 'BILL-3', instructions: 'carefully\nmind the cache' });
    expect(parseCommand('pr-review the parser changes', gh)).toEqual({ kind: 'run', pipeline: 'pr-review', ticket: null, instructions: 'the parser changes' });
  });

  it('a ticket alone asks for code on it', () => {
    expect(parseCommand('BILL-9', Platform.Jira)).toEqual({ kind: 'run', pipeline: 'code', ticket: 'BILL-9', instructions: null });
  });

  it('another configured pipeline is recognised as one a comment cannot start; anything else is free text', () => {
    expect(parseCommand('lint now', gh, ['lint'])).toEqual({ kind: 'other', name: 'lint' });
    expect(parseCommand('please look at the error handling', gh)).toEqual({ kind: 'free', text: 'please look at the error handling' });
  });
});
