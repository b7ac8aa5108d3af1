/** The chat's open review comments (review.comments), loaded again when its changes do. */
import { useCallback, useEffect, useState } from 'react';
import type { ReviewComment } from '../../../shared/contract';
import { errorInfo, type ApiErrorInfo } from '../../api/errors';
import { useActions } from '../../services/context';
import { reviewActions } from './actions';

export interface ReviewComments {
  comments: ReviewComment[];
  error: ApiErrorInfo | null;
  reload(): void;
}

export function useReviewComments(chatId: string, version: string): ReviewComments {
  const review = useActions(reviewActions);
  const [comments, setComments] = useState<ReviewComment[]>([]);
  const [error, setError] = useState<ApiErrorInfo | null>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    review
      .comments(chatId)
      .then((r) => {
        if (!live) return;
        setComments(r.comments);
        setError(null);
      })
      .catch((e: unknown) => live && setError(errorInfo(e)));
    return () => {
      live = false;
    };
  }, [review, chatId, version, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { comments, error, reload };
}
