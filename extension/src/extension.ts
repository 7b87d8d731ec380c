// The thin vscode glue: sign-in (SecretStorage), the built-in Git extension's
// view of the checkout, the panel, the status bar, the fix's virtual
// documents for the diff editor, and the commands. The logic lives in core/
// (no 'vscode' there), tested against the real server.
import * as vscode from 'vscode';
import path from 'node:path';
import type { BranchState } from '../../common/branch-state';
import { REJECT_REASONS } from '../../common/reject-reasons';
import { FlowfixClient, FlowfixError, tokensPage } from './core/client';
import { diskTree } from './core/fs-tree';
import { planFix, undoPlan, writePlan } from './core/patch';
import { buildView, type PanelInput, type ViewNode } from './core/view';

const TOKEN_KEY = 'flowfix.token';
const FIX_SCHEME = 'flowfix-fix';

interface GitRepository {
  rootUri: vscode.Uri;
  state: {
    HEAD?: { name?: string; commit?: string };
    remotes: Array<{ name: string; fetchUrl?: string; pushUrl?: string }>;
    onDidChange: vscode.Event<void>;
  };
}
interface GitApi {
  repositories: GitRepository[];
  onDidOpenRepository: vscode.Event<GitRepository>;
}

class Panel implements vscode.TreeDataProvider<ViewNode> {
  private nodes: ViewNode[] = [];
  private readonly changed = new vscode.EventEmitter<ViewNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  show(nodes: ViewNode[]) {
    this.nodes = nodes;
    this.changed.fire(undefined);
  }
  getChildren(node?: ViewNode): ViewNode[] {
    return node ? (node.children ?? []) : this.nodes;
  }
  getTreeItem(node: ViewNode): vscode.TreeItem {
    const item = new vscode.TreeItem(node.label, node.children?.length ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
    item.id = node.id;
    item.description = node.description;
    item.tooltip = node.tooltip;
    if (node.icon) item.iconPath = new vscode.ThemeIcon(node.icon);
    item.contextValue = node.contextValue;
    if (node.command) {
      const args = node.command.id === 'vscode.open' ? node.command.args?.map((a) => (typeof a === 'string' ? vscode.Uri.parse(a) : a)) : node.command.args;
      item.command = { command: node.command.id, title: node.command.title, arguments: args };
    }
    return item;
  }
}

class FlowfixExtension implements vscode.TextDocumentContentProvider {
  private readonly panel = new Panel();
  private readonly status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 50);
  private readonly output = vscode.window.createOutputChannel('flowfix');
  private state: BranchState | null = null;
  private repo: GitRepository | null = null;
  private lastKey = '';
  private follow: { runId: string; abort: AbortController } | null = null;
  private refreshing: Promise<void> | null = null;
  private again = false;
  /** the fix's version of each file, for the diff editor */
  private readonly fixTexts = new Map<string, string>();
  private readonly docChanged = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.docChanged.event;

  constructor(private readonly ctx: vscode.ExtensionContext) {}

  async start(): Promise<void> {
    const { ctx } = this;
    ctx.subscriptions.push(
      vscode.window.createTreeView('flowfix.branch', { treeDataProvider: this.panel }),
      this.status,
      this.output,
      vscode.workspace.registerTextDocumentContentProvider(FIX_SCHEME, this),
      vscode.commands.registerCommand('flowfix.signIn', () => this.signIn()),
      vscode.commands.registerCommand('flowfix.signOut', () => this.signOut()),
      vscode.commands.registerCommand('flowfix.refresh', () => this.refresh()),
      vscode.commands.registerCommand('flowfix.preview', (file?: unknown) => this.guard(() => this.preview(typeof file === 'string' ? file : undefined))),
      vscode.commands.registerCommand('flowfix.apply', () => this.guard(() => this.apply())),
      vscode.commands.registerCommand('flowfix.applyAsCommit', () => this.guard(() => this.applyAsCommit())),
      vscode.commands.registerCommand('flowfix.reject', () => this.guard(() => this.reject())),
      vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('flowfix') && void this.refresh()),
      ctx.secrets.onDidChange((e) => e.key === TOKEN_KEY && void this.refresh()),
      { dispose: () => this.follow?.abort.abort() },
    );
    this.status.command = 'flowfix.refresh';
    this.status.show();
    const git = await this.gitApi();
    if (git) {
      const watch = (r: GitRepository) => ctx.subscriptions.push(r.state.onDidChange(() => this.onGitChange()));
      git.repositories.forEach(watch);
      ctx.subscriptions.push(git.onDidOpenRepository((r) => (watch(r), this.onGitChange())));
    }
    await this.refresh();
  }

  private async gitApi(): Promise<GitApi | null> {
    const ext = vscode.extensions.getExtension<{ getAPI(v: 1): GitApi }>('vscode.git');
    if (!ext) return null;
    const exports = ext.isActive ? ext.exports : await ext.activate();
    return exports.getAPI(1);
  }

  private async pickRepository(): Promise<GitRepository | null> {
    const git = await this.gitApi();
    if (!git || git.repositories.length === 0) return null;
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    return git.repositories.find((r) => folder && (folder === r.rootUri.fsPath || folder.startsWith(r.rootUri.fsPath + path.sep))) ?? git.repositories[0];
  }

  /** The branch moved (a commit, a checkout, a pull): look again. */
  private onGitChange(): void {
    void this.pickRepository().then((repo) => {
      const key = repo ? `${repo.rootUri.fsPath}|${repo.state.HEAD?.name}|${repo.state.HEAD?.commit}|${repo.state.remotes.map((r) => r.fetchUrl).join(',')}` : '';
      if (key !== this.lastKey) void this.refresh();
    });
  }

  private async client(): Promise<FlowfixClient | null> {
    const token = await this.ctx.secrets.get(TOKEN_KEY);
    await vscode.commands.executeCommand('setContext', 'flowfix.signedIn', Boolean(token));
    if (!token) return null;
    return new FlowfixClient({ serverUrl: vscode.workspace.getConfiguration('flowfix').get<string>('serverUrl', 'http://localhost:3000'), token });
  }

  private render(input: PanelInput): void {
    const view = buildView(input);
    this.panel.show(view.nodes);
    this.status.text = view.status.text;
    this.status.tooltip = view.status.tooltip;
    void vscode.commands.executeCommand('setContext', 'flowfix.fixReady', view.nodes.some((n) => n.contextValue === 'fixReady'));
  }

  /** One look at the server; calls that arrive while one is under way make one more afterwards. */
  refresh(): Promise<void> {
    if (this.refreshing) {
      this.again = true;
      return this.refreshing;
    }
    this.refreshing = this.load().finally(() => {
      this.refreshing = null;
      if (this.again) {
        this.again = false;
        void this.refresh();
      }
    });
    return this.refreshing;
  }

  private async load(): Promise<void> {
    const started = Date.now();
    try {
      const client = await this.client();
      if (!client) {
        this.state = null;
        this.render({ kind: 'signed_out' });
        return;
      }
      const repo = await this.pickRepository();
      this.repo = repo;
      const branch = repo?.state.HEAD?.name;
      const remotes = (repo?.state.remotes ?? []).map((r) => r.fetchUrl ?? r.pushUrl).filter((u): u is string => Boolean(u));
      this.lastKey = repo ? `${repo.rootUri.fsPath}|${branch}|${repo.state.HEAD?.commit}|${remotes.join(',')}` : '';
      if (!repo) return this.render({ kind: 'no_repository', reason: 'Open a folder that is a git checkout' });
      if (!branch) return this.render({ kind: 'no_repository', reason: 'No branch is checked out (detached HEAD)' });
      if (remotes.length === 0) return this.render({ kind: 'no_repository', reason: 'This checkout has no git remote to find it on flowfix by' });
      if (!this.state) this.render({ kind: 'loading', branch });
      const state = await client.branchState({ remotes, branch });
      this.state = state;
      this.render({ kind: 'state', state, localHead: repo.state.HEAD?.commit ?? null });
      this.output.appendLine(`${new Date().toISOString()} ${branch}: ${state.change?.run?.status ?? 'no run'} (${Date.now() - started} ms)`);
      this.followRun(client, state);
    } catch (err) {
      this.state = null;
      const e = err instanceof FlowfixError ? err : new FlowfixError('server', `flowfix: ${(err as Error).message}`);
      this.render({ kind: 'error', message: e.message, link: e.link });
    }
  }

  /** Live: while the run is queued or running, every saved event makes the panel look again. */
  private followRun(client: FlowfixClient, state: BranchState): void {
    const run = state.change?.run;
    const live = run && (run.status === 'QUEUED' || run.status === 'RUNNING') ? run.id : null;
    if (this.follow && this.follow.runId === live) return;
    this.follow?.abort.abort();
    this.follow = null;
    if (!live) return;
    const abort = new AbortController();
    this.follow = { runId: live, abort };
    // the time left counts down between events too
    const tick = setInterval(() => void this.refresh(), 10_000);
    abort.signal.addEventListener('abort', () => clearInterval(tick));
    client
      .followRun(live, () => void this.refresh(), abort.signal)
      .catch((err: Error) => this.output.appendLine(`following run ${live}: ${err.message}`))
      .finally(() => {
        clearInterval(tick);
        if (this.follow?.runId === live) {
          this.follow = null;
          void this.refresh();
        }
      });
  }

  private async signIn(): Promise<void> {
    const server = vscode.workspace.getConfiguration('flowfix').get<string>('serverUrl', 'http://localhost:3000');
    const token = await vscode.window.showInputBox({
      title: 'flowfix: sign in',
      prompt: `A personal token made for the editor on ${tokensPage(server.replace(/\/+$/, ''))}`,
      placeHolder: 'ffp_…',
      password: true,
      ignoreFocusOut: true,
    });
    if (!token) return;
    await this.ctx.secrets.store(TOKEN_KEY, token.trim());
    await this.refresh();
  }

  private async signOut(): Promise<void> {
    await this.ctx.secrets.delete(TOKEN_KEY);
    await this.refresh();
  }

  /** Every command's failure is one line; nothing reaches the extension host. */
  private async guard(action: () => Promise<void>): Promise<void> {
    try {
      await action();
    } catch (err) {
      const e = err instanceof FlowfixError ? err : new FlowfixError('server', (err as Error).message);
      if (e.link) {
        const open = await vscode.window.showErrorMessage(`flowfix: ${e.message}`, 'Open the Tokens page');
        if (open) await vscode.env.openExternal(vscode.Uri.parse(e.link));
      } else void vscode.window.showErrorMessage(`flowfix: ${e.message}`);
    }
  }

  /** The open fix, or an error line saying why there is none to act on. */
  private async readyFix(): Promise<{ client: FlowfixClient; fixId: string; headRev: string; repo: GitRepository }> {
    const client = await this.client();
    if (!client) throw new FlowfixError('unauthenticated', 'Sign in first (flowfix: Sign in with a personal token)');
    await this.refresh();
    const fix = this.state?.change?.fix;
    const repo = this.repo;
    if (!this.state || !repo) throw new FlowfixError('not_found', 'There is no flowfix state for this checkout (see the flowfix panel)');
    if (!fix || this.state.change?.run?.status !== 'FIXED' || fix.runId !== this.state.change.run.id) {
      throw new FlowfixError('not_found', `flowfix has no fix for ${this.state.branch} yet`);
    }
    if (fix.status !== 'READY') throw new FlowfixError('conflict', `The fix is ${fix.status.toLowerCase()}, no longer open for a decision`);
    return { client, fixId: fix.id, headRev: fix.headRev, repo };
  }

  private stale(headRev: string, repo: GitRepository): string | null {
    const local = repo.state.HEAD?.commit;
    if (!local || local === headRev) return null;
    return `The fix is stale: it was made for ${headRev.slice(0, 12)} and your branch is at ${local.slice(0, 12)}; nothing was applied`;
  }

  private async preview(only?: string): Promise<void> {
    const { client, fixId, repo } = await this.readyFix();
    const [{ diff }, files] = await Promise.all([client.patch(fixId), client.files(fixId)]);
    const tree = diskTree(repo.rootUri.fsPath);
    const plan = await planFix(diff, tree);
    const writes = plan.ok ? new Map(plan.writes.map((w) => [w.path, w])) : new Map();
    let opened = 0;
    for (const f of files) {
      if (only && f.path !== only) continue;
      const local = vscode.Uri.file(path.join(repo.rootUri.fsPath, f.oldPath ?? f.path));
      const w = writes.get(f.path);
      // the fix applied to your file as it is now; when that conflicts, the fix's own sides
      const right = vscode.Uri.from({ scheme: FIX_SCHEME, path: `/${fixId}/${f.path}` });
      const left = w?.before !== null && w !== undefined ? local : vscode.Uri.from({ scheme: FIX_SCHEME, path: `/${fixId}/original/${f.path}` });
      this.fixTexts.set(right.toString(), w ? (w.after ?? '') : f.modified);
      this.fixTexts.set(vscode.Uri.from({ scheme: FIX_SCHEME, path: `/${fixId}/original/${f.path}` }).toString(), f.original);
      this.docChanged.fire(right);
      await vscode.commands.executeCommand('vscode.diff', left, right, `${path.basename(f.path)} ↔ flowfix fix`, { preview: files.length === 1 });
      opened++;
    }
    if (opened === 0) throw new FlowfixError('not_found', only ? `The fix does not change ${only}` : 'The fix has no files to show');
    await client.preview(fixId);
    if (!plan.ok) void vscode.window.showWarningMessage(`flowfix: ${plan.problems[0]} (the preview shows the fix against its own revision)`);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.fixTexts.get(uri.toString()) ?? '';
  }

  private async apply(): Promise<void> {
    const { client, fixId, headRev, repo } = await this.readyFix();
    const stale = this.stale(headRev, repo);
    if (stale) throw new FlowfixError('conflict', stale);
    const { diff, status } = await client.patch(fixId);
    if (status !== 'READY') throw new FlowfixError('conflict', `The fix is ${status.toLowerCase()}, no longer open for a decision; nothing was applied`);
    const tree = diskTree(repo.rootUri.fsPath);
    const plan = await planFix(diff, tree);
    if (!plan.ok) throw new FlowfixError('conflict', `${plan.problems.join('; ')}; nothing was applied`);
    // save first what the editor holds for these files, so the disk is what we planned on
    const dirty = vscode.workspace.textDocuments.filter((d) => d.isDirty && plan.writes.some((w) => d.uri.fsPath === path.join(repo.rootUri.fsPath, w.path)));
    if (dirty.length > 0) throw new FlowfixError('conflict', `${dirty.map((d) => vscode.workspace.asRelativePath(d.uri)).join(', ')}: unsaved changes in the editor; save or revert them first; nothing was applied`);
    await writePlan(plan.writes, tree);
    try {
      await client.acceptLocal(fixId, repo.state.HEAD?.commit ?? headRev);
    } catch (err) {
      await undoPlan(plan.writes, tree);
      throw new FlowfixError(err instanceof FlowfixError ? err.kind : 'server', `${(err as Error).message}; your files were put back as they were`);
    }
    void vscode.window.showInformationMessage(`flowfix: applied the fix to ${plan.writes.map((w) => w.path).join(', ')} (not committed); recorded your accept`);
    await this.refresh();
  }

  private async applyAsCommit(): Promise<void> {
    const { client, fixId, headRev, repo } = await this.readyFix();
    const stale = this.stale(headRev, repo);
    if (stale) throw new FlowfixError('conflict', stale);
    const result = await client.acceptAsCommit(fixId);
    void vscode.window.showInformationMessage(`flowfix: the fix is committed on the branch${result.commit ? ` as ${result.commit.slice(0, 12)}` : ''}; pull to get it`);
    await this.refresh();
  }

  private async reject(): Promise<void> {
    const { client, fixId } = await this.readyFix();
    const picked = await vscode.window.showQuickPick(
      REJECT_REASONS.map((r) => ({ label: r.label, value: r.value })),
      { title: 'flowfix: why reject this fix?', ignoreFocusOut: true },
    );
    if (!picked) return;
    let text: string | undefined;
    if (picked.value === 'OTHER') {
      text = await vscode.window.showInputBox({ title: 'flowfix: say why in a few words', ignoreFocusOut: true, validateInput: (v) => (v.trim() ? null : 'A few words, please') });
      if (!text) return;
    }
    await client.reject(fixId, picked.value, text);
    void vscode.window.showInformationMessage(`flowfix: rejected the fix (${picked.label.toLowerCase()})`);
    await this.refresh();
  }
}

export async function activate(ctx: vscode.ExtensionContext): Promise<void> {
  await new FlowfixExtension(ctx).start();
}

export function deactivate(): void {}
