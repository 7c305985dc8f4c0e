import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { searchText } from '../text/memory-text.js';

/**
 * A deterministic stand-in for an embeddings model, served over HTTP in OpenAI's `/embeddings`
 * format, for tests and the recall evaluation. A text's vector is the normalized sum of one
 * pseudo-random direction per concept it mentions; words map to concepts through a small table of
 * synonyms (English and Chinese), so paraphrases that share no word still land close together,
 * which is what a real model adds over lexical search. Crude suffix stripping stands in for stemming.
 */
export const TEST_EMBEDDING_DIMENSIONS = 64;

const SYNONYMS: Record<string, string> = {};
const GROUPS: string[][] = [
  ['car', 'automobile', 'vehicle', 'drive', 'driving', '汽车', '开车', '交通工具'],
  ['dog', 'puppy', 'canine', 'pet', '狗', '小狗', '宠物'],
  ['cat', 'kitten', 'feline', '猫', '小猫'],
  ['coffee', 'espresso', 'latte', 'caffeine', '咖啡'],
  ['tea', 'matcha', 'oolong', '茶', '绿茶'],
  ['allergy', 'allergic', 'intolerant', 'intolerance', '过敏'],
  ['peanut', 'nut', 'nuts', '花生', '坚果'],
  ['run', 'running', 'jog', 'jogging', 'marathon', '跑步', '慢跑', '马拉松'],
  ['swim', 'swimming', 'pool', '游泳'],
  ['sleep', 'bed', 'bedtime', 'insomnia', '睡觉', '睡眠', '失眠', '熬夜'],
  ['doctor', 'physician', 'gp', 'clinic', '医生', '诊所'],
  ['birthday', 'born', 'birth', '生日', '出生'],
  ['daughter', 'son', 'child', 'kid', 'children', '女儿', '儿子', '孩子'],
  ['wife', 'husband', 'spouse', 'partner', '妻子', '丈夫', '老婆', '老公'],
  ['mother', 'mom', 'mum', '妈妈', '母亲'],
  ['father', 'dad', '爸爸', '父亲'],
  ['work', 'job', 'employer', 'office', 'career', '工作', '公司', '上班'],
  ['engineer', 'developer', 'programmer', '工程师', '程序员'],
  ['vegetarian', 'vegan', 'meat', '素食', '吃素'],
  ['music', 'piano', 'guitar', 'song', '音乐', '钢琴', '吉他'],
  ['book', 'novel', 'read', 'reading', '书', '小说', '读书'],
  ['travel', 'trip', 'vacation', 'holiday', '旅行', '旅游', '度假'],
  ['medication', 'medicine', 'pill', 'drug', '药', '药物'],
  ['blood', 'pressure', 'hypertension', '血压', '高血压'],
  ['diabetes', 'sugar', 'glucose', 'insulin', '糖尿病', '血糖'],
  ['live', 'home', 'house', 'apartment', 'city', '住', '家', '城市'],
  ['morning', 'early', 'sunrise', '早上', '早晨'],
  ['language', 'speak', 'learn', 'learning', '语言', '学习'],
  ['spicy', 'chili', 'hot', '辣', '辣椒'],
  ['weight', 'diet', 'kg', '体重', '减肥'],
];
GROUPS.forEach((group, index) => group.forEach((word) => (SYNONYMS[word] = `concept${index}`)));

const stem = (word: string) => word.replace(/(ing|ed|es|s)$/u, '') || word;

function concepts(text: string): string[] {
  const tokens = searchText(text).split(/\s+/u).filter(Boolean);
  return tokens.map((token) => SYNONYMS[token] ?? SYNONYMS[stem(token)] ?? stem(token));
}

function direction(concept: string): number[] {
  const bytes = createHash('sha512').update(concept).digest();
  return Array.from({ length: TEST_EMBEDDING_DIMENSIONS }, (_, index) => (bytes[index % bytes.length]! / 255 - 0.5) * (index < bytes.length ? 1 : -1));
}

export function testEmbedding(text: string): number[] {
  const sum = new Array<number>(TEST_EMBEDDING_DIMENSIONS).fill(0);
  for (const concept of concepts(text)) direction(concept).forEach((value, index) => (sum[index]! += value));
  const norm = Math.hypot(...sum) || 1;
  return sum.map((value) => value / norm);
}

export interface TestEmbedder {
  baseUrl: string;
  /** Requests answered so far. */
  readonly calls: number;
  /** While true, every request answers 503, as a provider that is down. */
  failing: boolean;
  close(): Promise<void>;
}

export async function startTestEmbedder(): Promise<TestEmbedder> {
  const state = { calls: 0, failing: false };
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      state.calls++;
      if (state.failing || request.url !== '/v1/embeddings') {
        response.writeHead(state.failing ? 503 : 404).end();
        return;
      }
      const { input } = JSON.parse(body) as { input: string[] };
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ object: 'list', data: input.map((text, index) => ({ object: 'embedding', index, embedding: testEmbedding(text) })) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    get calls() {
      return state.calls;
    },
    get failing() {
      return state.failing;
    },
    set failing(value: boolean) {
      state.failing = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
