/** Attaching to a container's shell (Podman through a FIFO) and running processes in it: once, piped, or on a TTY. */
import Docker from 'dockerode';
import { PassThrough, Writable, type Readable } from 'node:stream';
import { demuxExec } from './execDemux.js';
import { STDIN_LABEL, STDIN_WRITER } from './podmanSandbox.js';
import type { AttachedStreams, TtyOptions, TtyProcess } from './engineInterface.js';
import type { DockerCall } from './dockerCall.js';



export class DockerExec {
  constructor(private readonly c: DockerCall) {}

  attach(id: string): Promise<AttachedStreams> {
    return this.c.call('attach to the sandbox', async (docker) => {
      // A Podman sandbox's shell reads a FIFO, not stdin (podmanSandbox.ts: withStdinFifo).
      if ((await this.c.kind()).name === 'podman' && (await docker.getContainer(id).inspect()).Config.Labels?.[STDIN_LABEL] === 'fifo') {
        return this.attachThroughFifo(docker, id);
      }
      const stream = (await docker.getContainer(id).attach({
        stream: true,
        stdin: true,
        stdout: true,
        stderr: true,
        hijack: true,
      })) as NodeJS.ReadWriteStream & { destroy(): void; end(): void };
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      docker.modem.demuxStream(stream, stdout, stderr);
      const ended = new Promise<void>((resolve) => {
        const done = () => resolve();
        stream.on('end', done);
        stream.on('close', done);
        stream.on('error', done);
      });
      return {
        stdin: stream as unknown as Writable,
        stdout,
        stderr,
        ended,
        close: () => stream.destroy(),
      };
    });
  }

  /**
   * Podman: the container's output through an attach without stdin (so Podman has no stdin to
   * close), and the input through an exec writing into the shell's FIFO, opened at the first
   * write (by then the container runs: the shell session writes only after the start). Either
   * stream ending ends the attachment.
   */
  private async attachThroughFifo(docker: Docker, id: string): Promise<AttachedStreams> {
    const output = (await docker.getContainer(id).attach({ stream: true, stdin: false, stdout: true, stderr: true, hijack: true })) as unknown as NodeJS.ReadableStream & { destroy(): void };
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    docker.modem.demuxStream(output, stdout, stderr);
    let end = (): void => undefined;
    const ended = new Promise<void>((resolve) => (end = resolve));
    for (const event of ['end', 'close', 'error']) output.on(event, () => end());
    let closed = false;
    let writer: Promise<NodeJS.ReadWriteStream & { destroy(): void }> | null = null;
    const openWriter = async () => {
      const exec = await docker.getContainer(id).exec({ Cmd: STDIN_WRITER, AttachStdin: true, AttachStdout: true, AttachStderr: true });
      const stream = (await exec.start({ hijack: true, stdin: true })) as NodeJS.ReadWriteStream & { destroy(): void };
      // The writer says why it could not run (no mkfifo in the image) on its own output.
      docker.modem.demuxStream(stream, stderr, stderr);
      for (const event of ['end', 'close', 'error']) stream.on(event, () => end());
      if (closed) stream.destroy();
      return stream;
    };
    const stdin = new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        writer ??= openWriter();
        writer.then((stream) => (stream.write(chunk), done()), (error: unknown) => done(error as Error));
      },
    });
    stdin.on('error', () => end());
    return {
      stdin,
      stdout,
      stderr,
      ended,
      close: () => {
        closed = true;
        output.destroy();
        void writer?.then((stream) => stream.destroy(), () => undefined);
      },
    };
  }

  execOnce(id: string, cmd: string[], user: string): Promise<{ exitCode: number; output: string }> {
    return this.c.call('run a command in the sandbox', async (docker) => {
      const exec = await docker.getContainer(id).exec({ Cmd: cmd, User: user, AttachStdout: true, AttachStderr: true });
      const stream = await exec.start({ hijack: true, stdin: false });
      const out = new PassThrough();
      const chunks: Buffer[] = [];
      out.on('data', (c: Buffer) => chunks.push(c));
      docker.modem.demuxStream(stream, out, out);
      await new Promise<void>((resolve) => {
        stream.on('end', resolve);
        stream.on('close', resolve);
        stream.on('error', resolve);
      });
      const info = await exec.inspect();
      return { exitCode: info.ExitCode ?? -1, output: Buffer.concat(chunks).toString('utf8') };
    });
  }

  execPipe(id: string, cmd: string[], user: string): Promise<AttachedStreams> {
    return this.c.call('relay a port of the sandbox', async (docker) => {
      const exec = await docker.getContainer(id).exec({ Cmd: cmd, User: user, AttachStdin: true, AttachStdout: true, AttachStderr: true });
      const stream = (await exec.start({ hijack: true, stdin: true })) as NodeJS.ReadWriteStream & { destroy(): void };
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      demuxExec(stream as unknown as Readable, stdout, stderr);
      const ended = new Promise<void>((resolve) => {
        for (const event of ['end', 'close', 'error']) stream.on(event, () => resolve());
      });
      // The demultiplexer never ends its outputs: the relay's end is the stream's.
      void ended.then(() => (stdout.end(), stderr.end()));
      return { stdin: stream as unknown as Writable, stdout, stderr, ended, close: () => stream.destroy() };
    });
  }

  execTty(id: string, options: TtyOptions): Promise<TtyProcess> {
    return this.c.call('open a terminal in the sandbox', async (docker) => {
      const exec = await docker.getContainer(id).exec({
        Cmd: options.cmd,
        User: options.user,
        Env: options.env,
        WorkingDir: options.workingDir,
        AttachStdin: true,
        AttachStdout: true,
        AttachStderr: true,
        Tty: true,
      });
      const stream = (await exec.start({ hijack: true, stdin: true, Tty: true })) as TtyProcess['stream'];
      const ended = new Promise<void>((resolve) => {
        stream.on('end', () => resolve());
        stream.on('close', () => resolve());
        stream.on('error', () => resolve());
      });
      const resize = async (cols: number, rows: number) => {
        try {
          await exec.resize({ w: cols, h: rows });
        } catch {
          // The process may have just exited; a resize then has nothing to do.
        }
      };
      await resize(options.cols, options.rows);
      return { stream, resize, ended };
    });
  }
}
